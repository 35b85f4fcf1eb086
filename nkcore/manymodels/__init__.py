"""(N, K) for many models (issue 54; the paper's future work): with N items and K ratings per item, how often the
winner, and the whole order, of M configs match the full data's, and the smallest budget N x K for a reproducible
winner. One concept per module:

- ``cube``         the ratings of M configs on the same items, every rating kept (items x configs x ratings)
- ``predictions``  M models' predictions scored against K gold ratings per item (the paper's setting)
- ``reproduce``    the resampled studies, the winner and order agreement, the grid and the minimal budget
- ``document``     ``rank --nk``'s JSON key ``nk`` and its sentence

docs/rank.md gives the method and the HANNA figures.
"""

from nkcore.manymodels.cube import RatingCube, cube_from_array, rating_cube
from nkcore.manymodels.reproduce import Reproducibility, minimal_budget, reproducibility, reproducibility_grid

__all__ = [
    "RatingCube",
    "Reproducibility",
    "cube_from_array",
    "minimal_budget",
    "rating_cube",
    "reproducibility",
    "reproducibility_grid",
]
