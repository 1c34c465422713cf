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
1 1684.97
10 8230.94
100 13901.6
1000 19330.9
EOD
$ceiling_0 << EOD
1 2789.68
10 13593.3
100 20995.5
1000 30023.6
EOD
$idem_1 << EOD
1 605.755
10 1200.86
100 1104.66
1000 2489.18
EOD
$ceiling_1 << EOD
1 1202.05
10 2018.54
100 2168.68
1000 2401.29
EOD
plot $idem_0 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title "idem, sqlite", \
     $ceiling_0 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title "ceiling (no guard), sqlite", \
     2901.457248 with lines lw 1.5 dt 3 lc rgb '#1f77b4' title "naive (one message per transaction), sqlite", \
     $idem_1 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title "idem, postgres+redis", \
     $ceiling_1 with linespoints lw 2 pt 6 dt 2 lc rgb '#d62728' title "ceiling (no guard), postgres", \
     618.467363 with lines lw 1.5 dt 3 lc rgb '#d62728' title "naive (one message per transaction), postgres+redis"
