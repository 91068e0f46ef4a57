# TBTCP §7 "Flow Completion Time": 80 % of the flows shorter than 100 KB, sizes 4 KB to 5 MB.
# Constructed from that sentence (the paper publishes no distribution): uniform 4 KB..100 KB for
# 80 %, 100 KB..1 MB for 10 %, 1 MB..5 MB for 10 % (linear interpolation between the points).
4000 0
100000 0.8
1000000 0.9
5000000 1
