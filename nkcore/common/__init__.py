"""Helpers shared by every part of nkcore, each in one home.

- :mod:`nkcore.common.seeding`: seeds to generators (``as_generator``, ``as_entropy``).
- :mod:`nkcore.common.truth`: the one true/false vocabulary for 0/1 columns.
- :mod:`nkcore.common.rows`: row numbers in messages ("data rows 3, 7 and 2 more").
- :mod:`nkcore.common.formatting`: points, percent and p-values for people.
- :mod:`nkcore.common.checks`: checks of the significance level, the confidence level and power.
- :mod:`nkcore.common.intervals`: Wilson and Clopper-Pearson intervals of a proportion.
- :mod:`nkcore.common.limits`: the work budget of one request (file size, rows, rounds, memory...).
- :mod:`nkcore.common.counting`: distinct values and their counts by hashing (``distinct_counts``).
"""
