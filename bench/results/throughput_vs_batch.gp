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
1 1436.75
10 8241.05
100 19287.4
1000 22315.4
EOD
$ceiling_0 << EOD
1 1839.07
10 13049.3
100 37265.7
1000 26257.4
EOD
$idem_1 << EOD
1 706.568
10 1911.5
100 1024.97
1000 3291.37
EOD
$ceiling_1 << EOD
1 1482.26
10 3457.2
100 3279.67
1000 2650.67
EOD
plot $idem_0 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title "idem, sqlite", \
     $ceiling_0 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title "ceiling (no guard), sqlite", \
     1129.637221 with lines lw 1.5 dt 3 lc rgb '#1f77b4' title "naive (one message per transaction), sqlite", \
     $idem_1 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title "idem, postgres+redis", \
     $ceiling_1 with linespoints lw 2 pt 6 dt 2 lc rgb '#d62728' title "ceiling (no guard), postgres", \
     660.503258 with lines lw 1.5 dt 3 lc rgb '#d62728' title "naive (one message per transaction), postgres+redis"
