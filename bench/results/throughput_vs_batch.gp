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
1 4260.58
10 15302.2
100 38023.3
1000 57664.4
EOD
$ceiling_0 << EOD
1 5420.96
10 22215.5
100 48640
1000 77700.4
EOD
$idem_1 << EOD
1 649.753
10 827.647
100 11557.6
1000 14765.1
EOD
$ceiling_1 << EOD
1 1086.98
10 7019.82
100 21633.3
1000 21465.1
EOD
$idem_2 << EOD
1 622.984
10 4155.17
100 12060.7
1000 12296.2
EOD
$ceiling_2 << EOD
1 888.343
10 5419.08
100 16500.3
1000 25221.6
EOD
plot $idem_0 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title "idem, sqlite", \
     $ceiling_0 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title "ceiling (no guard), sqlite", \
     4782.303683 with lines lw 1.5 dt 3 lc rgb '#1f77b4' title "naive (one message per transaction), sqlite", \
     $idem_1 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title "idem, postgres", \
     $ceiling_1 with linespoints lw 2 pt 6 dt 2 lc rgb '#d62728' title "ceiling (no guard), postgres", \
     594.316083 with lines lw 1.5 dt 3 lc rgb '#d62728' title "naive (one message per transaction), postgres", \
     $idem_2 with linespoints lw 2 pt 7 dt 1 lc rgb '#2ca02c' title "idem, mysql", \
     $ceiling_2 with linespoints lw 2 pt 6 dt 2 lc rgb '#2ca02c' title "ceiling (no guard), mysql", \
     733.902265 with lines lw 1.5 dt 3 lc rgb '#2ca02c' title "naive (one message per transaction), mysql"
