set terminal pngcairo size 960,600 font 'sans,11' noenhanced
set output "bench/results/throughput_vs_batch.png"
set title "idem bench: throughput against batch size (pay.success, 30 % duplicates, full run)"
set logscale xy
set xrange [0.8:1300]
set grid xtics ytics mytics
set key top left box opaque
set xlabel 'batch size (messages per transaction)'
set ylabel 'messages / s (log scale)'
set xtics (1, 10, 100, 1000)
$idem_0 << EOD
1 2939.95
10 9732.58
100 13895.2
1000 21405.9
EOD
$ceiling_0 << EOD
1 3716.4
10 20409.1
100 44039.3
1000 39108.9
EOD
$idem_1 << EOD
1 589.191
10 1464.6
100 1150.31
1000 3057.44
EOD
$ceiling_1 << EOD
1 1483.2
10 2857.66
100 3356.36
1000 3805.24
EOD
plot $idem_0 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title "idem, sqlite", \
     $ceiling_0 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title "ceiling (no guard), sqlite", \
     1844.024377 with lines lw 1.5 dt 3 lc rgb '#1f77b4' title "naive (one message per transaction), sqlite", \
     $idem_1 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title "idem, postgres+redis", \
     $ceiling_1 with linespoints lw 2 pt 6 dt 2 lc rgb '#d62728' title "ceiling (no guard), postgres", \
     636.564607 with lines lw 1.5 dt 3 lc rgb '#d62728' title "naive (one message per transaction), postgres+redis"
