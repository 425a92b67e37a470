import FeedModel
import Foundation
import TermImage
import TermUI

/// A photo for a new goal, read from a path on disk and checked: a PNG or JPEG file of at most
/// 10 MB that decodes. Read when the form's photo field is left or the goal is created (never
/// while drawing).
struct GoalPhoto {
    let path: String
    let data: Data
    /// "PNG" or "JPEG"
    let format: String
    /// The preview, decoded once.
    let preview: HalfBlockImage

    /// Cells of the preview in the form: 12 × 6 (12 × 12 pixels).
    static let previewSize = (columns: 12, rows: 6)

    /// "PNG, 2.1 KB"
    var summary: String {
        "\(format), \(GoalPhoto.size(data.count))"
    }

    static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        if bytes < 1024 * 1024 { return String(format: "%.1f KB", Double(bytes) / 1024) }
        return String(format: "%.1f MB", Double(bytes) / (1024 * 1024))
    }

    /// The photo at `raw` (`~/` is the home folder), or a one-line reason it cannot be one.
    /// `cellPixels`: where the terminal draws pictures itself, the preview is one at its resolution.
    static func load(path raw: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                     cellPixels: PixelSize? = nil) -> Result<GoalPhoto, Problem> {
        let path = HomePath.expand(raw.trimmingCharacters(in: .whitespaces), environment: environment)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            return .failure(Problem("no file at that path"))
        }
        if isFolder.boolValue { return .failure(Problem("a folder, not a file")) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        if size > NewGoal.maxPhotoBytes { return .failure(Problem("over 10 MB (\(GoalPhoto.size(size)))")) }
        guard let handle = FileHandle(forReadingAtPath: path) else { return .failure(Problem("cannot be read")) }
        defer { try? handle.close() }
        // At most one byte past the limit, whatever the file grew to since.
        guard let data = try? handle.read(upToCount: NewGoal.maxPhotoBytes + 1) ?? Data() else {
            return .failure(Problem("cannot be read"))
        }
        if data.count > NewGoal.maxPhotoBytes { return .failure(Problem("over 10 MB")) }
        guard let format = NewGoal.photoFormat(data) else { return .failure(Problem("not a PNG or JPEG image")) }
        // Scaled down while decoding (JPEG): the preview needs few pixels.
        guard let image = ImageDecoder.decode(data, atLeast: (32, 32)) else {
            return .failure(Problem("a damaged \(format.uppercased()) image (it does not decode)"))
        }
        let preview = HalfBlockImage(image.limited(toMaxSide: 256), columns: previewSize.columns, rows: previewSize.rows,
                                     cellPixels: cellPixels)
        return .success(GoalPhoto(path: raw, data: data, format: format.uppercased(), preview: preview))
    }

    struct Problem: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
