import Foundation
import Testing
import TermUI

/// Golden frames as files, `Tests/AppTests/Golden/<name>.txt`: a whole screen's text, and below
/// a separator its colour layer, one character per cell naming the cell's style from a legend
/// written in the same file (a colour change shows as a diff, like a text change).
///
/// `QAPITAL_UPDATE_GOLDEN=1 swift test --filter GoldenFrameTests` writes the files (into the
/// source tree: the path comes from `#filePath`, not from the test bundle's resources); without it
/// a frame that differs fails with a line diff, and a missing file fails saying how to make it.
enum GoldenFile {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let updateVariable = "QAPITAL_UPDATE_GOLDEN"
    static var updating: Bool { ProcessInfo.processInfo.environment[updateVariable] == "1" }

    static let styleSeparator = "──── styles: one character per cell, named in the legend below ────"
    static let legendSeparator = "──── legend ────"
    /// The characters that name styles, in order of first appearance (row by row); a blank is the plain style.
    static let styleNames = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&*+=@^~<>")

    enum RenderError: Error, CustomStringConvertible {
        case tooManyStyles(Int)
        var description: String {
            switch self {
            case .tooManyStyles(let count): "the frame has \(count) styles, more than the \(GoldenFile.styleNames.count) a golden file names"
            }
        }
    }

    /// In the style layer of a frame with pictures: a picture's half-block cell, whatever its colours.
    static let pictureCell: Character = "▀"

    /// The file's text for `screen`: a title line, the text layer, the style layer, the legend.
    /// Trailing blanks are trimmed on every line, nothing else. `pictures`: cells of a picture
    /// (`▀` in two RGB colours) are named `▀` in the style layer, their colours not compared (a
    /// picture is hundreds of them; the picture tests look at those), so the frame keeps where
    /// pictures are drawn.
    static func render(_ screen: CellBuffer, title: String, pictures: Bool = false) throws -> String {
        var names: [Style: Character] = [.plain: " "]
        var legend: [(Character, Style)] = []
        var styleRows: [String] = []
        var picturesDrawn = false
        for y in 0..<screen.height {
            var row = ""
            for x in 0..<screen.width {
                let style = screen.style(atX: x, y: y)
                if pictures, screen[x, y].scalar == "▀", case .rgb = style.fg, case .rgb = style.bg {
                    row.append(pictureCell)
                    picturesDrawn = true
                } else if let name = names[style] {
                    row.append(name)
                } else {
                    guard legend.count < styleNames.count else { throw RenderError.tooManyStyles(legend.count + 1) }
                    let name = styleNames[legend.count]
                    names[style] = name
                    legend.append((name, style))
                    row.append(name)
                }
            }
            styleRows.append(row)
        }
        var lines = ["# \(title), \(screen.width)×\(screen.height). Written by \(updateVariable)=1 swift test --filter GoldenFrameTests"]
        lines += screen.lines
        lines.append(styleSeparator)
        lines += styleRows
        lines.append(legendSeparator)
        lines += legend.map { "\($0.0) \(describe($0.1))" }
        if picturesDrawn { lines.append("\(pictureCell) a picture's half blocks (colours not compared)") }
        return lines.map(trimmingTrailingBlanks).joined(separator: "\n") + "\n"
    }

    static func describe(_ style: Style) -> String {
        var parts: [String] = []
        if style.fg != .default { parts.append("fg=\(describe(style.fg))") }
        if style.bg != .default { parts.append("bg=\(describe(style.bg))") }
        let attributes: [(Attributes, String)] = [(.bold, "bold"), (.dim, "dim"), (.reverse, "reverse"), (.underline, "underline"),
                                                  (.italic, "italic")]
        parts += attributes.filter { style.attributes.contains($0.0) }.map(\.1)
        return parts.isEmpty ? "plain" : parts.joined(separator: " ")
    }

    static func describe(_ color: Color) -> String {
        switch color {
        case .default: "default"
        case .role(let role): role.configName
        case .indexed(let n): "color\(n)"
        case .rgb(let r, let g, let b): "#" + [r, g, b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
    }

    static func trimmingTrailingBlanks(_ line: String) -> String {
        String(line.reversed().drop { $0 == " " }.reversed())
    }

    /// Compares `actual` with the file `name`.txt, or writes it when updating.
    static func check(_ actual: String, name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if let problem = problem(actual, name: name) { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
    }

    /// Why `actual` does not pass as the file `name`.txt, nil when it does (or was written, when updating).
    static func problem(_ actual: String, name: String) -> String? {
        let url = directory.appendingPathComponent("\(name).txt")
        if updating {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let old = try? String(contentsOf: url, encoding: .utf8)
                if old != actual { try actual.write(to: url, atomically: true, encoding: .utf8) }
                return nil
            } catch {
                return "cannot write the golden file \(url.path): \(error)"
            }
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            return "no golden file \(url.path): write it with \(updateVariable)=1 swift test --filter GoldenFrameTests, look at it, and commit it"
        }
        guard expected != actual else { return nil }
        return """
            the frame differs from Golden/\(name).txt (- file, + now; \(updateVariable)=1 swift test --filter GoldenFrameTests \
            rewrites it):
            \(lineDiff(expected: expected, actual: actual))
            """
    }

    /// The lines that differ, by line number, at most `limit` of them.
    static func lineDiff(expected: String, actual: String, limit: Int = 30) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var out: [String] = []
        var differing = 0
        for i in 0..<max(old.count, new.count) {
            let a = i < old.count ? String(old[i]) : nil
            let b = i < new.count ? String(new[i]) : nil
            guard a != b else { continue }
            differing += 1
            if differing > limit { continue }
            out.append("line \(i + 1):")
            out.append("- " + (a ?? "(no line)"))
            out.append("+ " + (b ?? "(no line)"))
        }
        if differing > limit { out.append("… and \(differing - limit) more differing lines") }
        return out.joined(separator: "\n")
    }
}
