# On a GPU machine, from the repository root: triton-aot-tune on the tuner's test library, then
# the CMake flow (TUNE_* -> `tune` target -> a table in the source tree -> relink) on the tuned
# plugin project built for 90a. Prepared here with
#   cmake --install build/default --prefix build/device-install --strip
#   cp build/default/tests/tuner/lib/libtun.so build/carry/
# and run there with build/carry and build/device-install carried; writes the two tables to $OUT.
set -e
D=$PWD/build/device-install
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
time $D/bin/triton-aot-tune --library build/carry/libtun.so --spec bench/tuning/tun.tune.json --output $OUT/tun.tuning.json
rm -rf /tmp/tp && cp -r tests/plugin/projects/tuned /tmp/tp && rm /tmp/tp/adds.tuning.json
sed -i 's/ARCHITECTURES 80/ARCHITECTURES 90a/; s|\${CMAKE_CURRENT_SOURCE_DIR}/../two_kernels|'$PWD'/tests/plugin/projects/two_kernels|' /tmp/tp/CMakeLists.txt
sed -i 's/TUNE_SHAPES 1024 1048576/TUNE_SHAPES 1024 65536 1048576 16777216/' /tmp/tp/CMakeLists.txt
cmake -S /tmp/tp -B /tmp/tpb -G Ninja -DTritonAOT_DIR=$D/lib/cmake/TritonAOT -DTRITON_AOT_PYTHON=$(command -v python3) > /tmp/cfg.log 2>&1 || { tail -20 /tmp/cfg.log; exit 1; }
cmake --build /tmp/tpb 2>&1 | tail -2
time cmake --build /tmp/tpb --target tune 2>&1 | tail -12
cp /tmp/tp/adds.tuning.json $OUT/adds.tuning.json
cmake --build /tmp/tpb 2>&1 | grep -c "tuning" || true
grep -c "tta_snap" /tmp/tpb/adds.triton-aot/adds.c
