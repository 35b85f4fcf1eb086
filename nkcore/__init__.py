"""nkcore: the pure compute package behind NK Planner (numpy / scipy / pandas; no streamlit).

Two questions, one package:
- (N, K): how many items N and ratings per item K to buy with a budget N x K (``nkcore.nk``).
- Reading an accuracy curve: paired tests, majority-vote curves, latency and cost
  (``nkcore.paired``, ``nkcore.resolution``, ``nkcore.voting``, ``nkcore.latency``, ``nkcore.cost``).
"""

from nkcore.errors import DataError

__all__ = ["DataError"]
__version__ = "0.1.0"
