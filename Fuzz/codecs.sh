#!/usr/bin/env bash
# Builds libpng and libjpeg-turbo from Debian's own sources (the versions this machine runs),
# instrumented for libFuzzer and AddressSanitizer, into .build-fuzz/codecs. Fuzz/run.sh links
# the `images` harness against them when they are there, so the fuzzer sees (and steers by)
# the decoders' own branches, not only our shim's.
#   Fuzz/codecs.sh        needs curl, clang (the Swift toolchain's), make and cmake (apt-get install -y cmake)
# The archives are checked against the hashes below before anything is unpacked.
set -euo pipefail
cd "$(dirname "$0")/.."

out=$PWD/.build-fuzz/codecs
pool=http://deb.debian.org/debian/pool/main
png_archive=libpng1.6_1.6.39.orig.tar.gz
png_sha256=a00e9d2f2f664186e4202db9299397f851aea71b36a35e74910b8820e380d441
jpeg_archive=libjpeg-turbo_2.1.5.orig.tar.gz
jpeg_sha256=254f3642b04e309fee775123133c6464181addc150499561020312ec61c1bf7c

for tool in curl clang make cmake; do
    command -v "$tool" >/dev/null || { echo "codecs: $tool is missing" >&2; exit 1; }
done

mkdir -p "$out/src"
fetch() {
    local path=$1 archive=$2 sha256=$3
    if [ ! -f "$out/src/$archive" ]; then
        curl -fsSL -o "$out/src/$archive.part" "$pool/$path/$archive"
        mv "$out/src/$archive.part" "$out/src/$archive"
    fi
    echo "$sha256  $out/src/$archive" | sha256sum -c --quiet - || { rm -f "$out/src/$archive"; exit 1; }
    tar xzf "$out/src/$archive" -C "$out/src"
}
fetch libp/libpng1.6 "$png_archive" "$png_sha256"
fetch libj/libjpeg-turbo "$jpeg_archive" "$jpeg_sha256"

export CC=clang
cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address"

echo "codecs: libpng"
(cd "$out/src/libpng-1.6.39" && CFLAGS="$cflags" ./configure -q --disable-shared --prefix="$out" \
    && make -s -j2 install) >"$out/libpng.log" 2>&1 || { tail -20 "$out/libpng.log" >&2; exit 1; }

echo "codecs: libjpeg-turbo (no SIMD, so every path is C the fuzzer can see)"
cmake -S "$out/src/libjpeg-turbo-2.1.5" -B "$out/jpeg-build" -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="$cflags" \
    -DENABLE_SHARED=0 -DWITH_SIMD=0 -DWITH_TURBOJPEG=0 >/dev/null
# The library alone (its programs are not needed), installed by hand beside libpng.
cmake --build "$out/jpeg-build" -j2 --target jpeg-static >/dev/null
cp "$out/jpeg-build/libjpeg.a" "$out/lib/"
cp "$out/jpeg-build/jconfig.h" "$out/src/libjpeg-turbo-2.1.5/"{jpeglib.h,jmorecfg.h,jerror.h} "$out/include/"

ls "$out/lib/libpng16.a" "$out/lib/libjpeg.a"
echo "codecs: done; Fuzz/run.sh now builds the images harness against them"
