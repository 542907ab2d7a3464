# Sourced by the record-*.sh recipes, which record into $OUT.

# `recorded COUNT WHY`: an output already there is not recorded again (COUNT,
# a function, says what it holds, and the recipe exits); else recording
# needs root, for WHY.
recorded() {
    if [ -e "$OUT" ]; then
        echo "$OUT exists, not recording again (remove it to re-record)"
        "$1"
        exit 0
    fi
    [ "$(id -u)" -eq 0 ] || { echo "must run as root ($2)" >&2; exit 1; }
}

# The events of a CTF output, as babeltrace2 counts them.
count_ctf() {
    echo "events: $(babeltrace2 "$OUT" | wc -l) in $OUT ($(du -sh "$OUT" | cut -f1))"
}
