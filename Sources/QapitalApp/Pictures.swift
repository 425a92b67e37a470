import FeedModel
import Foundation
import TermImage
import TermUI

/// Goal images and avatars where the screens have them, with the monogram as the fallback.
/// Screens call these while drawing; the store answers at once and fetches what it lacks.
@MainActor
enum Pictures {
    /// Cells of the goal row thumbnail: one line, 4 cells × 2 pixel rows.
    static let rowSize = (columns: 4, rows: 1)
    /// The avatar in an activity row: 2 cells, 2 × 2 pixels.
    static let avatarSize = (columns: 2, rows: 1)

    /// Draws the picture at `url` if the store has it; false when the caller should draw the monogram.
    @discardableResult
    static func draw(_ url: URL?, images: (any PicturesReading)?, columns: Int, rows: Int, into buffer: inout CellBuffer,
                     x: Int, y: Int, clip: Rect? = nil) -> Bool {
        guard let images, let picture = images.image(for: url, columns: columns, rows: rows) else { return false }
        picture.draw(into: &buffer, x: x, y: y, clip: clip)
        return true
    }

    /// A monogram filling `rect`: the initials centred on the goal's own colour (`tint`) or the
    /// name's (reverse video without colour).
    static func monogramBlock(_ name: String, tint: GoalTint? = nil, colors: Bool, rect: Rect, into buffer: inout CellBuffer) {
        let style = monogramStyle(name, tint: tint, colors: colors)
        buffer.fill(rect, style: style)
        let letters = DisplayFormat.monogram(name)
        let x = rect.x + max(0, (rect.width - TextWidth.of(letters)) / 2)
        buffer.write(letters, x: x, y: rect.y + (rect.height - 1) / 2, maxWidth: rect.maxX - x, style: style)
    }

    /// A person's avatar as `initials` on the name's colour, `width` cells wide, one line.
    static func monogramSpan(initials: String, name: String, tint: GoalTint? = nil, width: Int, colors: Bool) -> Span {
        // "佐美" is four cells: in two, the first letter alone.
        let letters = TextWidth.of(initials) > width ? String(initials.prefix(1)) : initials
        let pad = max(0, (width - TextWidth.of(letters)) / 2)
        let text = TextWidth.pad(String(repeating: " ", count: pad) + TextWidth.truncate(letters, to: width), to: width)
        return Span(text, monogramStyle(name, tint: tint, colors: colors))
    }

    /// White letters on the name's colour; on a goal's own colour, its theme role in reverse video
    /// (the letters in the terminal's background, readable on any hue); without colour, reverse video.
    static func monogramStyle(_ name: String, tint: GoalTint?, colors: Bool) -> Style {
        guard colors else { return Style(attributes: [.reverse, .bold]) }
        if let tint { return Style(fg: .role(DisplayFormat.role(tint)), attributes: [.reverse, .bold]) }
        return Style(fg: .indexed(231), bg: DisplayFormat.monogramColor(name), attributes: .bold)
    }
}
