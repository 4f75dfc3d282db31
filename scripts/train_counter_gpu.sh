#!/usr/bin/env bash
# Train the pit counter on a GPU machine for a fixed time (vision/train_gpu.py).
#
#   OUT=DIR [T=SECONDS] [N=PROC_PER_PROCESS] [VAL=RENDER_DIR] [INIT=MODEL] [KEEP=SHARE] \
#       [RUNS="NAME:WIDTH:LR[:STAGES] ..."] scripts/train_counter_gpu.sh RENDER_DIR [RENDER_DIR ...]
#
# Cuts the training crops, all in parallel on the CPUs: each labelled render folder
# given twice over (the pits cut with the true geometry, `train_cnn photo`, and as the
# board pipeline cuts them, `train_cnn pipeline`), the sample singles 0000-0079, every
# third game frame and 12 x N procedural pits. The held-out crops that choose each
# run's checkpoint are the singles 0080-0099 and, with VAL, the pipeline's crops of
# that render folder (never trained on). Then the runs of RUNS go side by side on the
# one GPU for T seconds each, every one started from INIT (default: the shipped board
# network; widened first when WIDTH is larger, batch norms frozen; INIT= empty: from
# scratch) at peak learning rate LR, with STAGES convolutions at each scale when given
# (as 1,2,2,2; a deeper network than INIT starts from it with identity layers added,
# `train_cnn.deeper`). KEEP (0..1, with INIT): that share of each target is INIT's own
# reading of the crop (`train_gpu --keep`, learning without forgetting: for a short
# stage on a few new boards). Each writes its best model to OUT/NAME.npz (and
# .json, the held-out history); the log is OUT/train.log. Finish a model here with
# `train_cnn temper`, `widen` and `onnx`, and compare it on fresh renders with
# benchmarks/counter_models.py.
#
# What travels to the machine is at most 64 MiB with the repository (about 25 MiB), so
# seven render folders of 40 (about 5 MB each) fit in one call beside the choosing set
# and INIT, and the cut crops are not kept for the next call: more folders take a
# second call that starts from the first's model (INIT=OUT_1/B.npz RUNS="B2:32:5e-4").
# Render some of the folders with `bao render --pit-walls 0.8 2.4` (pits whose walls run
# into the top face with no crisp rim; the procedural pits draw such dimples too), some
# with `--seed-size 0.22 0.46` and some with `--varied-layout` (wide ends and gaps, pits
# of 26-46 % of the pitch): the shipped network has seen none of them (docs/vision.md,
# "Fifty-fourth session" and "Fifty-fifth session").
# Used on 2026-11-26 (one H200) and 2026-11-27 (one H100, three sessions):
# docs/counting.md, "Trained on a GPU", "Twice the boards", "A deeper network" and
# "Twenty-seventh session".
set -u
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder for the models}"
T=${T:-420}
INIT=${INIT-vision/models/counter_cnn.npz}  # INIT= (empty): from scratch
RUNS=${RUNS:-"A:16:1e-3 B:32:1e-3 C:24:1e-3"}
export PYTHONPATH=$PWD OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
python3 -c "import torch; print(torch.__version__, 'cuda' if torch.cuda.is_available() else 'no GPU')" || exit 1
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT; mkdir -p "$D/tr" "$D/va" "$OUT"
for f in sample_images/singles/synth_1_00[0-7]?.*; do ln -s "$PWD/$f" "$D/tr/"; done
for f in sample_images/singles/synth_1_00[89]?.*; do ln -s "$PWD/$f" "$D/va/"; done
t=$(date +%s)
for i in $(seq 1 12); do
  python3 -m vision.train_cnn gen "$D/p$i.npz" --n "${N:-1200}" --seed $((7000 + i)) 2>/dev/null &
done
k=0
for s in "$@"; do
  k=$((k + 1))
  python3 -m vision.train_cnn photo "$D/ph_$k.npz" "$s" > /dev/null &
  python3 -m vision.train_cnn pipeline "$D/pp_$k.npz" "$s" > /dev/null &
done
python3 -m vision.train_cnn photo "$D/ph_tr.npz" "$D/tr" > /dev/null &
python3 -m vision.train_cnn photo "$D/val_singles.npz" "$D/va" > /dev/null &
python3 -m vision.train_cnn photo "$D/ph_games.npz" sample_images/games/game_0{1,2,3} --every 3 > /dev/null &
if [ -n "${VAL:-}" ]; then python3 -m vision.train_cnn pipeline "$D/val_renders.npz" "$VAL" > /dev/null & fi
wait
echo "crops cut in $(( $(date +%s) - t )) s"
DATA="$(ls "$D"/p[0-9]*.npz "$D"/ph_*.npz "$D"/pp_*.npz 2>/dev/null)"
VALS="$(ls "$D"/val_*.npz)"
run() {  # name, train_gpu arguments...
  n=$1; shift
  # shellcheck disable=SC2086  # DATA and VALS are lists of paths
  python3 -m vision.train_gpu --data $DATA --val $VALS --out "$OUT/$n.npz" --seconds "$T" \
    --batch 1024 --val-every 20 "$@" 2>&1 | sed -u "s/^/$n /" >> "$OUT/train.log"
}
seed=10
for r in $RUNS; do
  IFS=: read -r name width lr stages <<< "$r"
  seed=$((seed + 1))
  run "$name" ${INIT:+--init "$INIT"} --width "$width" --max-lr "$lr" --seed "$seed" \
    ${stages:+--stages "$stages"} ${KEEP:+--keep "$KEEP"} &
done
wait
echo "done in $(( $(date +%s) - t )) s"
grep -v -E "^[^ ]+ +[0-9]+s step" "$OUT/train.log" | tail -12
