import FeedModel
import Foundation
import TermImage
import TermUI

/// Where the goal detail has room (a terminal of 100 × 30 or more, pictures on), its header is
/// the goal's photo large on the left, 12 rows high and as wide as the photo's aspect ratio and
/// the terminal's cell make it; beside it the name, saved of target and the people, the balance
/// chart under those; a rule under both. Elsewhere the detail keeps its compact header
/// (`GoalDetailScreen.drawHeader`) and the chart above the feed.
@MainActor
enum GoalDetailHeader {
    /// The smallest screen area (under the tab bar, over the status bar) with the large photo:
    /// a terminal of 100 columns and 30 rows.
    static let minimumArea = (width: 100, height: 28)
    /// Rows of the large photo (its rule is one more).
    static let photoRows = 12
    /// The photo keeps its aspect ratio within these; a wider or taller one is cropped to them.
    static let aspectRange = 0.75...1.5
    /// A cell's height over its width where the terminal does not say: half blocks draw two
    /// pixels a cell, about square on a usual font.
    static let assumedCellAspect = 2.0

    enum Layout: Equatable {
        /// The five-row header (a small picture or the monogram beside three lines).
        case compact
        /// `photo`: the picture's cells; `text`: the three lines beside it; `chart`: the chart
        /// block under them, its last row the rule; `height`: rows taken, the rule under the photo included.
        case large(photo: Rect, text: Rect, chart: Rect, height: Int)
    }

    /// The header for `area`: large only with pictures on, the chart shown (`c` hides it to give
    /// the feed the rows: then the compact header) and the room for it. `cellPixels`: the
    /// terminal's cell where it draws pictures itself; `aspect`: the photo's width over its
    /// height once it arrived (square until then).
    static func layout(area: Rect, pictures: Bool, chart: Bool = true, cellPixels: PixelSize?, aspect: Double?) -> Layout {
        guard pictures, chart, area.width >= minimumArea.width, area.height >= minimumArea.height else { return .compact }
        let columns = min(photoColumns(cellPixels: cellPixels, aspect: aspect), area.width / 2)
        // The photo, a column, and beside it the text (a column in) over the chart.
        let beside = area.rows([.length(photoRows + 1)])[0].columns([.length(columns), .length(1), .fill(1)])
        let side = beside[2].rows([.length(3), .length(1), .fill(1)])
        return .large(photo: beside[0].rows([.length(photoRows)])[0],
                      text: side[0].columns([.length(1), .fill(1)])[1],
                      chart: side[2],
                      height: photoRows + 1)
    }

    /// Columns of the large photo: `photoRows` high, its aspect ratio (within `aspectRange`) at
    /// the cell's shape.
    static func photoColumns(cellPixels: PixelSize?, aspect: Double?) -> Int {
        let cell = cellPixels.flatMap { $0.width > 0 && $0.height > 0 ? Double($0.height) / Double($0.width) : nil } ?? assumedCellAspect
        let ratio = min(max(aspect ?? 1, aspectRange.lowerBound), aspectRange.upperBound)
        return max(1, Int((Double(photoRows) * cell * ratio).rounded()))
    }

    /// The longest side the image store keeps of each picture where the terminal draws pictures
    /// itself: enough for the widest large photo at `cell`, at least `ImageStore.pictureSourceSide`,
    /// at most 512 (a megabyte a picture).
    static func sourceSide(cell: PixelSize) -> Int {
        let widest = photoColumns(cellPixels: cell, aspect: aspectRange.upperBound) * cell.width
        return min(512, max(ImageStore.pictureSourceSide, widest, photoRows * cell.height))
    }

    /// The photo (or, until it arrives and where there is none, the monogram) and the three
    /// lines beside it, and the rule under the photo across the whole width. The chart is the
    /// caller's (`chart` in the layout).
    static func draw(_ goal: Goal, photo: Rect, text: Rect, height: Int, users: any UsersReading, colors: Bool, images: (any PicturesReading)?,
                     into buffer: inout CellBuffer, area: Rect) {
        if !Pictures.draw(goal.imageURL, images: images, columns: photo.width, rows: photo.height,
                          into: &buffer, x: photo.x, y: photo.y, clip: photo) {
            Pictures.monogramBlock(goal.name, colors: colors, rect: photo, into: &buffer)
        }
        GoalDetailScreen.drawHeaderText(goal, users: users, into: &buffer, area: text, x: text.x)
        buffer.write(String(repeating: "─", count: area.width), x: area.x, y: area.y + height - 1, style: Style(fg: .role(.border)))
    }
}
