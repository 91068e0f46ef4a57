# uniform flow sizes 1 KB .. 1 MB (AMP paper §5.3, Fig. 13): linear CDF between the two points
1000 0
1000000 1
