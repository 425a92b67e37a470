@testable import DemoData
import CImageCodecs
import FeedModel
import Foundation
@testable import TermImage

/// Pictures made by the tests: PNG through FeedModel's encoder, JPEG through libjpeg.
enum TestImages {
    /// RGBA pixels from a function of (x, y).
    static func rgba(width: Int, height: Int, _ colour: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> [UInt8] {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(x, y)
                pixels += [c.0, c.1, c.2, c.3]
            }
        }
        return pixels
    }

    static func png(width: Int, height: Int, _ colour: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> Data {
        PNGEncoder.encode(width: width, height: height, rgba: rgba(width: width, height: height, colour))!
    }

    static func jpeg(width: Int, height: Int, quality: Int32 = 95, _ colour: (Int, Int) -> (UInt8, UInt8, UInt8)) -> Data {
        var rgb: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(x, y)
                rgb += [c.0, c.1, c.2]
            }
        }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = qic_encode_jpeg_rgb(rgb, UInt32(width), UInt32(height), quality, &out, &size)
        defer { qic_free(out) }
        precondition(status == Int32(QIC_OK) && out != nil, "libjpeg could not compress")
        return Data(bytes: out!, count: size)
    }

    static func image(width: Int, height: Int, _ colour: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> RGBAImage {
        RGBAImage(width: width, height: height, pixels: rgba(width: width, height: height, colour))!
    }
}
