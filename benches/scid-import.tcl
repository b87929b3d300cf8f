# Imports a PGN file into a new SCID database with SCID's own importer
# (`sc_base import`), for benches/bench-vs-scid.sh. Run by tkscid:
#   tkscid benches/scid-import.tcl OUT_BASE INPUT.pgn
# Prints the number of games SCID stored.
set out [lindex $argv 0]
set in [lindex $argv 1]
file delete -force $out.si4 $out.sg4 $out.sn4
set base [sc_base create $out]
sc_base import $base $in
puts "scid: [sc_base numGames $base] games"
sc_base close $base
exit
