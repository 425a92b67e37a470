@testable import DemoData
import FeedModel
import Foundation
import Testing
@testable import TermImage

@Suite struct ImageDecoderTests {
    @Test func aPNGDecodesToItsExactPixels() throws {
        let data = TestImages.png(width: 3, height: 2) { x, y in (UInt8(x * 100), UInt8(y * 200), 7, x == 2 ? 128 : 255) }
        #expect(ImageDecoder.sniff(data) == .png)
        let image = try #require(ImageDecoder.decode(data))
        #expect(image.width == 3 && image.height == 2)
        #expect(image.pixels == TestImages.rgba(width: 3, height: 2) { x, y in (UInt8(x * 100), UInt8(y * 200), 7, x == 2 ? 128 : 255) })
    }

    @Test func aLargerPNGSpansSeveralStoredBlocks() throws {
        // 200 × 100 × 4 bytes is more than one 64 KB stored deflate block.
        let data = TestImages.png(width: 200, height: 100) { x, y in (UInt8(x), UInt8(y), UInt8((x + y) % 256), 255) }
        let image = try #require(ImageDecoder.decode(data))
        #expect(image.pixel(x: 199, y: 99) == (199, 99, 42, 255))
    }

    @Test func aJPEGDecodesToNearlyItsColours() throws {
        // Left half red, right half blue; JPEG is lossy, so within a margin away from the edge.
        let data = TestImages.jpeg(width: 32, height: 16) { x, _ in x < 16 ? (220, 30, 30) : (30, 30, 220) }
        #expect(ImageDecoder.sniff(data) == .jpeg)
        let image = try #require(ImageDecoder.decode(data))
        #expect(image.width == 32 && image.height == 16)
        let left = image.pixel(x: 4, y: 8), right = image.pixel(x: 28, y: 8)
        #expect(abs(Int(left.r) - 220) < 12 && abs(Int(left.b) - 30) < 12 && left.a == 255)
        #expect(abs(Int(right.b) - 220) < 12 && abs(Int(right.r) - 30) < 12)
    }

    @Test func aJPEGIsScaledWhileDecodingWhenOnlyAThumbnailIsWanted() throws {
        let data = TestImages.jpeg(width: 128, height: 64) { _, _ in (10, 200, 10) }
        let image = try #require(ImageDecoder.decode(data, atLeast: (16, 8)))
        #expect(image.width == 16 && image.height == 8)
        let full = try #require(ImageDecoder.decode(data))
        #expect(full.width == 128)
    }

    @Test func aGreyJPEGComesOutAsRGBA() throws {
        let data = TestImages.jpeg(width: 8, height: 8) { _, _ in (128, 128, 128) }
        let image = try #require(ImageDecoder.decode(data))
        let p = image.pixel(x: 3, y: 3)
        #expect(abs(Int(p.r) - 128) < 4 && abs(Int(p.g) - 128) < 4 && p.a == 255)
    }

    static let png = TestImages.png(width: 16, height: 16) { x, y in (UInt8(x * 16), UInt8(y * 16), 0, 255) }
    static let jpeg = TestImages.jpeg(width: 16, height: 16) { x, y in (UInt8(x * 16), UInt8(y * 16), 0) }

    @Test(arguments: [
        ("empty", Data()),
        ("text", Data("hello, not a picture".utf8)),
        ("html", Data("<html><body>404</body></html>".utf8)),
        ("PNG signature only", png.prefix(8)),
        ("truncated PNG", png.prefix(png.count / 2)),
        ("truncated PNG header", png.prefix(20)),
        ("JPEG start only", jpeg.prefix(3)),
        ("truncated JPEG header", jpeg.prefix(40)),
        ("broken PNG stream", brokenPNG()),
        ("GIF", Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8)),
    ] as [(String, Data)])
    func brokenOrForeignBytesGiveNil(name: String, data: Data) {
        #expect(ImageDecoder.decode(data) == nil, "\(name)")
    }

    /// The zlib header of the IDAT chunk overwritten: libpng fails, in C.
    static func brokenPNG() -> Data {
        var bytes = [UInt8](png)
        // Signature (8) + IHDR (4 + 4 + 13 + 4) + IDAT length and type (8): the zlib header.
        bytes[8 + 25 + 8] = 0x00
        bytes[8 + 25 + 9] = 0x00
        return Data(bytes)
    }

    @Test func aTruncatedJPEGBodyDecodesWithoutCrashing() {
        // libjpeg pads a JPEG cut after its header with grey and warns (silently here): a picture
        // or nil are both fine; what matters is no crash and no longjmp through Swift.
        let data = ImageDecoderTests.jpeg.prefix(ImageDecoderTests.jpeg.count - 40)
        if let image = ImageDecoder.decode(data) { #expect(image.width == 16) }
    }

    @Test func picturesWiderOrTallerThan8000PixelsAreRefused() {
        let wide = PNGEncoder.encode(width: 8001, height: 1, rgba: [UInt8](repeating: 200, count: 8001 * 4))!
        #expect(ImageDecoder.decode(wide) == nil)
        let tall = PNGEncoder.encode(width: 1, height: 8001, rgba: [UInt8](repeating: 200, count: 8001 * 4))!
        #expect(ImageDecoder.decode(tall) == nil)
        let limit = PNGEncoder.encode(width: 8000, height: 1, rgba: [UInt8](repeating: 200, count: 8000 * 4))!
        #expect(ImageDecoder.decode(limit)?.width == 8000)
    }

    @Test func bodiesOver10MBAreRefusedUnread() {
        var data = ImageDecoderTests.png
        data.append(Data(count: ImageDecoder.maxBytes))
        #expect(data.count > ImageDecoder.maxBytes)
        #expect(ImageDecoder.decode(data) == nil)
    }

    @Test func theDemoPicturesAreDeterministicPNGs() throws {
        #expect(DemoImages.goalPNG(id: 3) == DemoImages.goalPNG(id: 3))
        #expect(DemoImages.goalPNG(id: 3) != DemoImages.goalPNG(id: 4))
        let goal = try #require(ImageDecoder.decode(DemoImages.goalPNG(id: 1)))
        #expect(goal.width == 48 && goal.height == 48)
        let avatarPNG = try #require(DemoImages.png(atPath: "/images/avatars/2.png"))
        let avatar = try #require(ImageDecoder.decode(avatarPNG))
        #expect(avatar.width == 32)
        #expect(DemoImages.png(atPath: "/images/other/2.png") == nil)
        #expect(DemoImages.png(atPath: "/images/goals/x.png") == nil)
        #expect(DemoImages.png(atPath: "/images/goals/1.jpg") == nil)
    }
}
