#!/usr/bin/env bash
# Train the pit counter on a GPU machine for a fixed time (vision/train_gpu.py).
#
#   OUT=DIR [T=SECONDS] [N=PROC_PER_PROCESS] scripts/train_counter_gpu.sh RENDER_DIR [RENDER_DIR ...]
#
# Cuts the training crops (the labelled renders given, the sample singles 0000-0079
# and every third game frame; singles 0080-0099 held out to choose the checkpoint)
# and 12 x N procedural pits, all in parallel on the CPUs, then runs three trainings
# side by side on the one GPU for T seconds each:
#   A  the shipped board network fine-tuned (batch norms frozen, peak lr 1e-3)
#   B  the same network from scratch (peak lr 4e-3)
#   C  B with the seed-density target (vision/seed_density.py, weight 1.0)
# Each writes its best model to OUT/{A,B,C}.npz (and .json, the held-out history);
# the log is OUT/train.log. Finish a model here with `train_cnn temper` and `onnx`.
# Used 2026-11-26 on one H200 (docs/counting.md, "Trained on a GPU").
set -u
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder for the models}"
T=${T:-420}
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
for s in "$@"; do k=$((k + 1)); python3 -m vision.train_cnn photo "$D/ph_$k.npz" "$s" & done
python3 -m vision.train_cnn photo "$D/ph_tr.npz" "$D/tr" &
python3 -m vision.train_cnn photo "$D/ph_val.npz" "$D/va" &
python3 -m vision.train_cnn photo "$D/ph_games.npz" sample_images/games/game_0{1,2,3} --every 3 &
wait
echo "crops cut in $(( $(date +%s) - t )) s"
DATA="$(ls "$D"/p[0-9]*.npz) $(ls "$D"/ph_*.npz | grep -v ph_val)"
run() {  # name, train_gpu arguments...
  n=$1; shift
  # shellcheck disable=SC2086  # DATA is a list of paths
  python3 -m vision.train_gpu --data $DATA --val "$D/ph_val.npz" --out "$OUT/$n.npz" --seconds "$T" \
    --batch 1024 --val-every 20 "$@" 2>&1 | sed -u "s/^/$n /" >> "$OUT/train.log"
}
run A --init vision/models/counter_cnn.npz --max-lr 1e-3 --seed 11 &
run B --max-lr 4e-3 --seed 12 &
run C --max-lr 4e-3 --density-weight 1.0 --seed 13 &
wait
echo "done in $(( $(date +%s) - t )) s"
grep -v -E "^[A-C] +[0-9]+s step" "$OUT/train.log" | tail -12
