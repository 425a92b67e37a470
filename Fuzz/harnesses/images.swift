import Foundation

// libFuzzer entry: any bytes as a PNG or JPEG through libpng/libjpeg (ImageDecoder). A picture
// comes back or nil; a decoded one has the size it claims.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImages(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let image = ImageDecoder.decode(data), image.pixels.count != image.width * image.height * 4 {
        fatalError("decoded \(image.width)×\(image.height) with \(image.pixels.count) bytes")
    }
    return 0
}
