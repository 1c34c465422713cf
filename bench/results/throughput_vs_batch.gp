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
1 364.712
10 12017.4
100 10268.3
1000 18779.2
EOD
$ceiling_0 << EOD
1 2466.37
10 3273.56
100 15186.1
1000 32898.6
EOD
$idem_1 << EOD
1 380.132
10 749.778
100 1737.2
1000 4705.38
EOD
$ceiling_1 << EOD
1 573.239
10 3805.1
100 2593.29
1000 4860.15
EOD
plot $idem_0 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title "idem, sqlite", \
     $ceiling_0 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title "ceiling (no guard), sqlite", \
     420.613289 with lines lw 1.5 dt 3 lc rgb '#1f77b4' title "naive (one message per transaction), sqlite", \
     $idem_1 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title "idem, postgres+redis", \
     $ceiling_1 with linespoints lw 2 pt 6 dt 2 lc rgb '#d62728' title "ceiling (no guard), postgres", \
     213.704412 with lines lw 1.5 dt 3 lc rgb '#d62728' title "naive (one message per transaction), postgres+redis"
