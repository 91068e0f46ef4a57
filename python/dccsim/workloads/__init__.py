"""Generated workloads: permutation, Poisson arrivals from a flow-size CDF, incast requests, and
the replay of an earlier run's flow list (generate.py); the CDFs shipped as data (README.md)."""
