import Foundation

// libFuzzer entry: any bytes through TextSanitizer.clean. Checks that nothing a terminal acts on
// is left (C0, DEL, C1, ESC, bidi controls) and that cleaning is idempotent.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSanitizer(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let clean = TextSanitizer.clean(text)
    for scalar in clean.unicodeScalars {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) {
            fatalError("U+\(String(value, radix: 16)) survived cleaning")
        }
    }
    if TextSanitizer.clean(clean) != clean { fatalError("cleaning is not idempotent") }
    return 0
}
