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
1 5655.45
10 19832.9
100 50775.8
1000 67349.3
EOD
$ceiling_0 << EOD
1 6727.52
10 23839.3
100 68264.2
1000 88690.1
EOD
$idem_1 << EOD
1 857.042
10 5350.53
100 17103
1000 19956.4
EOD
$ceiling_1 << EOD
1 1587.68
10 8656.44
100 27895.7
1000 31597.1
EOD
$idem_2 << EOD
1 1029.86
10 4741.66
100 14310.3
1000 14781.5
EOD
$ceiling_2 << EOD
1 1364.22
10 7536.78
100 23159.3
1000 29879.1
EOD
plot $idem_0 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title "idem, sqlite", \
     $ceiling_0 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title "ceiling (no guard), sqlite", \
     5408.085382 with lines lw 1.5 dt 3 lc rgb '#1f77b4' title "naive (one message per transaction), sqlite", \
     $idem_1 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title "idem, postgres", \
     $ceiling_1 with linespoints lw 2 pt 6 dt 2 lc rgb '#d62728' title "ceiling (no guard), postgres", \
     860.503216 with lines lw 1.5 dt 3 lc rgb '#d62728' title "naive (one message per transaction), postgres", \
     $idem_2 with linespoints lw 2 pt 7 dt 1 lc rgb '#2ca02c' title "idem, mysql", \
     $ceiling_2 with linespoints lw 2 pt 6 dt 2 lc rgb '#2ca02c' title "ceiling (no guard), mysql", \
     1013.586323 with lines lw 1.5 dt 3 lc rgb '#2ca02c' title "naive (one message per transaction), mysql"
