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
1 5094.98
10 20133.4
100 43091.1
1000 75804.3
EOD
$ceiling_0 << EOD
1 6062.19
10 26131.4
100 60961.2
1000 104908
EOD
$idem_1 << EOD
1 790.181
10 5927.81
100 15660.4
1000 25666.6
EOD
$ceiling_1 << EOD
1 1566.79
10 9688.83
100 27511.6
1000 42534.6
EOD
$idem_2 << EOD
1 989.057
10 5011.57
100 15823.5
1000 19380.7
EOD
$ceiling_2 << EOD
1 1226.93
10 8823.38
100 23947.2
1000 38365.3
EOD
plot $idem_0 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title "idem, sqlite", \
     $ceiling_0 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title "ceiling (no guard), sqlite", \
     5338.301419 with lines lw 1.5 dt 3 lc rgb '#1f77b4' title "naive (one message per transaction), sqlite", \
     $idem_1 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title "idem, postgres", \
     $ceiling_1 with linespoints lw 2 pt 6 dt 2 lc rgb '#d62728' title "ceiling (no guard), postgres", \
     842.049297 with lines lw 1.5 dt 3 lc rgb '#d62728' title "naive (one message per transaction), postgres", \
     $idem_2 with linespoints lw 2 pt 7 dt 1 lc rgb '#2ca02c' title "idem, mysql", \
     $ceiling_2 with linespoints lw 2 pt 6 dt 2 lc rgb '#2ca02c' title "ceiling (no guard), mysql", \
     998.935469 with lines lw 1.5 dt 3 lc rgb '#2ca02c' title "naive (one message per transaction), mysql"
