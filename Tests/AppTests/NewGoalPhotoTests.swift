@testable import DemoData
import DemoServer
import FeedModel
import Foundation
@testable import StarlingSource
import FoundationNetworking
import QapitalClient
import StarlingClient
import Testing
import TermUI
import TestSupport
@testable import QapitalApp

/// The new-goal form's photo (seed 002): a path to a PNG or JPEG on disk, previewed before
/// saving, refused in one line when missing, not an image or over 10 MB; sent with the goal
/// and served back as its picture.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct NewGoalPhotoTests {
    /// A folder of its own for a test's files, removed afterwards.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("goal-photo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Opens the form, types the name and the photo's path, and leaves the photo field.
    static func fill(_ app: AppHarness, name: String, photo path: String) async -> [String] {
        _ = await app.press(.char("a"))
        _ = await app.type(name)
        _ = await app.press(.tab, .tab)
        _ = await app.type(path)
        return await app.press(.tab)
    }

    @Test func aMissingFileIsNamedInOneLineAndNothingIsSent() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        let app = AppHarness(api: api, width: 100, height: 30)
        _ = await app.start()
        var lines = await Self.fill(app, name: "Camera", photo: "/nonexistent/photo.png")
        #expect(lines.contains { $0.contains("✗ no file at that path") })
        lines = await app.press(.enter)
        #expect(lines.contains { $0.contains("✗ no file at that path") })
        #expect(api.count(.createGoal) == 0)
        #expect(app.core.newGoalForm?.focus == .photo)
    }

    @Test func aFileThatIsNotAnImageIsRefused() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("notes.png")
        try Data("hello, not a picture".utf8).write(to: text)
        let damaged = folder.appendingPathComponent("damaged.png")
        try (Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 64)).write(to: damaged)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        let app = AppHarness(api: api, width: 100, height: 30)
        _ = await app.start()
        var lines = await Self.fill(app, name: "Camera", photo: text.path)
        #expect(lines.contains { $0.contains("✗ not a PNG or JPEG image") })
        // A folder, and a file that starts like a PNG but is not one.
        _ = await app.press(.backTab)
        for _ in 0..<text.path.count { _ = await app.press(.backspace) }
        _ = await app.type(folder.path)
        lines = await app.press(.tab)
        #expect(lines.contains { $0.contains("✗ a folder, not a file") })
        _ = await app.press(.backTab)
        for _ in 0..<folder.path.count { _ = await app.press(.backspace) }
        _ = await app.type(damaged.path)
        lines = await app.press(.enter)
        #expect(lines.contains { $0.contains("✗ a damaged PNG image (it does not decode)") })
        #expect(api.count(.createGoal) == 0)
    }

    @Test func aFileOver10MBIsRefused() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let big = folder.appendingPathComponent("big.jpg")
        var bytes = Data([0xFF, 0xD8, 0xFF, 0xE0])
        bytes.append(Data(count: NewGoal.maxPhotoBytes))
        try bytes.write(to: big)
        let result = GoalPhoto.load(path: big.path)
        #expect(throws: Never.self) { _ = try? result.get() }
        guard case .failure(let problem) = result else {
            Issue.record("a file over 10 MB was taken")
            return
        }
        #expect(problem.message == "over 10 MB (10.0 MB)")
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        let app = AppHarness(api: api, width: 100, height: 30)
        _ = await app.start()
        let lines = await Self.fill(app, name: "Camera", photo: big.path)
        #expect(lines.contains { $0.contains("✗ over 10 MB") })
        // Exactly 10 MB is fine as far as size goes (it is then not a picture that decodes).
        try Data(bytes.prefix(NewGoal.maxPhotoBytes)).write(to: big)
        guard case .failure(let atLimit) = GoalPhoto.load(path: big.path) else {
            Issue.record("10 MB of bytes that are no picture were taken as a photo")
            return
        }
        #expect(!atLimit.message.hasPrefix("over 10 MB"))
    }

    @Test func aPhotoIsPreviewedSentAndShownAsTheGoalsPicture() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = DemoImages.goalPNG(id: 3)
        try png.write(to: folder.appendingPathComponent("bike.png"))
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        let app = AppHarness(api: api, width: 100, height: 30, colors: true)
        _ = await app.start()
        app.core.newGoalForm?.home = folder.path
        _ = await app.press(.char("a"))
        app.core.newGoalForm?.home = folder.path
        _ = await app.type("New bike")
        _ = await app.press(.tab, .tab)
        _ = await app.type("~/bike.png")
        var lines = await app.press(.tab)
        #expect(lines.contains { $0.contains("✓ PNG, ") })
        // The preview: six rows of half blocks under the photo's line.
        let note = try #require(lines.firstIndex { $0.contains("✓ PNG, ") })
        let previewRows = lines[(note + 1)...(note + 6)].filter { $0.contains("▀") || $0.contains("▄") }.count
        #expect(previewRows == 6)
        lines = await app.press(.enter)
        #expect(api.createdPhotos == [png])
        let created = try #require(app.core.goals.goals.last)
        #expect(created.name == "New bike")
        #expect(created.imageURL == URL(string: "demo:/images/photos/13.png"))
        // The backend gives the photo back as the goal's picture.
        #expect(try await api.imageData(at: created.imageURL!) == png)
    }
}

extension NewGoalPhotoTests {
    /// Where the terminal draws pictures itself, the preview is placed as one (12 × 6 cells at
    /// 10 × 20 pixels), and closing the form takes it away.
    @Test func thePreviewIsAPictureWhereTheTerminalDrawsThem() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try DemoImages.goalPNG(id: 3).write(to: folder.appendingPathComponent("bike.png"))
        let app = AppHarness(width: 100, height: 30, colors: true, pictureCellPixels: PixelSize(width: 10, height: 20))
        _ = await app.start()
        _ = await app.press(.char("a"))
        _ = await app.type("New bike")
        _ = await app.press(.tab, .tab)
        _ = await app.type(folder.appendingPathComponent("bike.png").path)
        _ = await app.press(.tab)
        let preview = try #require(app.terminal.pictures.first { $0.rect.width == 12 && $0.rect.height == 6 },
                                   "\(app.terminal.pictures.map(\.rect))")
        #expect(preview.picture.width == 120 && preview.picture.height == 120)
        _ = await app.press(.escape)
        #expect(!app.terminal.pictures.contains { $0.picture == preview.picture })
    }
}

/// The photo over HTTP: `serve` keeps it and serves it back; Starling's demo takes it as base64.
@Suite(.timeLimit(.minutes(1))) struct NewGoalPhotoServeTests {
    @Test func serveKeepsThePhotoAndServesItBack() async throws {
        let png = DemoImages.goalPNG(id: 5)
        try await withDemoServer { server, api in
            let created = try await api.createGoal(name: "Camera", target: nil, photo: png)
            let url = try #require(created.imageURL)
            #expect(url.path == "/images/photos/13.png")
            #expect(url.host == "127.0.0.1")
            let (data, response) = try await URLSession.shared.data(from: url)
            #expect(data == png)
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "image/png")
            #expect(try await api.goals().last?.imageURL == url)
            // Not an image: refused in one line.
            do {
                _ = try await api.createGoal(name: "Bad", target: nil, photo: Data("text".utf8))
                Issue.record("serve took text as a photo")
            } catch let error as APIError {
                #expect(error.message == "POST /savingsgoals: HTTP 400: base64EncodedPhoto: not a PNG or JPEG image")
            }
        }
    }

    @Test func starlingGetsTheBase64EncodedPhoto() async throws {
        let png = DemoImages.goalPNG(id: 5)
        try await withStarlingServer { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken)
            let goal = try await api.createGoal(name: "Camera", target: nil, photo: png)
            let picture = try #require(goal.imageURL)
            #expect(picture.scheme == StarlingAPI.photoScheme)
            #expect(try await api.imageData(at: picture) == png)
        }
    }
}

extension NewGoalPhotoTests {
    /// `--no-images` (or a screen reader) shows no picture anywhere: the form names the photo it
    /// read and draws no half-block preview (before: six rows of half blocks all the same).
    @Test func withoutPicturesTheFormNamesThePhotoAndDrawsNoPreview() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try DemoImages.goalPNG(id: 3).write(to: folder.appendingPathComponent("bike.png"))
        let app = AppHarness(width: 100, height: 30, colors: true, images: false)
        _ = await app.start()
        _ = await app.press(.char("a"))
        app.core.newGoalForm?.home = folder.path
        _ = await app.type("New bike")
        _ = await app.press(.tab, .tab)
        _ = await app.type("~/bike.png")
        let lines = await app.press(.tab)
        #expect(lines.contains { $0.contains("✓ PNG, ") })
        #expect(!lines.contains { $0.contains("▀") || $0.contains("▄") })
    }
}
