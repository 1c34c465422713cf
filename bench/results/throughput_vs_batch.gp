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
1 1988.19
10 7110.32
100 18222.4
1000 18775.7
EOD
$ceiling_0 << EOD
1 2756.42
10 11406.5
100 32510.6
1000 31065.4
EOD
$idem_1 << EOD
1 735.891
10 1211.3
100 1032.37
1000 2315.93
EOD
$ceiling_1 << EOD
1 1152.39
10 1953.19
100 1931.97
1000 2182.93
EOD
plot $idem_0 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title "idem, sqlite", \
     $ceiling_0 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title "ceiling (no guard), sqlite", \
     1654.658173 with lines lw 1.5 dt 3 lc rgb '#1f77b4' title "naive (one message per transaction), sqlite", \
     $idem_1 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title "idem, postgres+redis", \
     $ceiling_1 with linespoints lw 2 pt 6 dt 2 lc rgb '#d62728' title "ceiling (no guard), postgres", \
     523.861498 with lines lw 1.5 dt 3 lc rgb '#d62728' title "naive (one message per transaction), postgres+redis"
