import Testing
import TermImage
import TermUI
@testable import QapitalApp

/// The goal detail's header: the large photo where there is room (100 × 28 cells of screen area,
/// a terminal of 100 × 30, pictures on, the chart shown), the compact one elsewhere; the photo's width from its
/// aspect ratio and the cell's shape.
@MainActor
@Suite struct GoalDetailHeaderTests {
    static let cell = PixelSize(width: 10, height: 20)

    @Test func theLargePhotoNeedsPicturesAndTheRoom() {
        let enough = Rect(x: 0, y: 1, width: 100, height: 28)
        #expect(GoalDetailHeader.layout(area: enough, pictures: true, cellPixels: nil, aspect: nil) != .compact)
        #expect(GoalDetailHeader.layout(area: enough, pictures: false, cellPixels: nil, aspect: nil) == .compact)
        // `c` hid the chart: the compact header gives the feed the rows.
        #expect(GoalDetailHeader.layout(area: enough, pictures: true, chart: false, cellPixels: nil, aspect: nil) == .compact)
        for area in [Rect(x: 0, y: 1, width: 99, height: 28), Rect(x: 0, y: 1, width: 100, height: 27),
                     Rect(x: 0, y: 1, width: 78, height: 22), Rect(x: 0, y: 1, width: 200, height: 10)] {
            #expect(GoalDetailHeader.layout(area: area, pictures: true, cellPixels: Self.cell, aspect: 1) == .compact, "\(area)")
        }
    }

    @Test func theLargeLayoutPlacesThePhotoTheTextAndTheChart() {
        let area = Rect(x: 0, y: 1, width: 120, height: 38)
        let layout = GoalDetailHeader.layout(area: area, pictures: true, cellPixels: Self.cell, aspect: nil)
        // A square photo 12 rows high: 24 cells of 10 × 20 pixels; the text two cells right of
        // it, the chart under the text down to the rule under the photo.
        #expect(layout == .large(photo: Rect(x: 0, y: 1, width: 24, height: 12),
                                 text: Rect(x: 26, y: 1, width: 94, height: 3),
                                 chart: Rect(x: 25, y: 5, width: 95, height: 9),
                                 height: 13))
        guard case .large(let photo, _, let chart, let height) = layout else { return }
        #expect(chart.maxY == area.y + height && photo.maxY == area.y + height - 1)
        #expect(chart.width >= GoalChart.minimumWidth)
    }

    @Test func thePhotosWidthFollowsItsAspectAndTheCell() {
        // Half blocks: two pixels a cell, 24 × 24 pixels.
        #expect(GoalDetailHeader.photoColumns(cellPixels: nil, aspect: nil) == 24)
        #expect(GoalDetailHeader.photoColumns(cellPixels: Self.cell, aspect: 1) == 24)
        #expect(GoalDetailHeader.photoColumns(cellPixels: PixelSize(width: 8, height: 20), aspect: 1) == 30)
        #expect(GoalDetailHeader.photoColumns(cellPixels: Self.cell, aspect: 1.5) == 36)
        // Wider or taller than the range: cropped to it.
        #expect(GoalDetailHeader.photoColumns(cellPixels: Self.cell, aspect: 3) == 36)
        #expect(GoalDetailHeader.photoColumns(cellPixels: Self.cell, aspect: 0.25) == 18)
        // Never more than half the width.
        let wide = GoalDetailHeader.layout(area: Rect(x: 0, y: 0, width: 100, height: 30), pictures: true,
                                           cellPixels: PixelSize(width: 6, height: 20), aspect: 1.5)
        guard case .large(let photo, _, _, _) = wide else { Issue.record("\(wide)"); return }
        #expect(photo.width == 50)
    }

    /// The store keeps each picture large enough for the widest large photo, within bounds.
    @Test func theStoreKeepsEnoughOfEachPictureAndNoMore() {
        #expect(GoalDetailHeader.sourceSide(cell: Self.cell) == 360)
        #expect(GoalDetailHeader.sourceSide(cell: PixelSize(width: 7, height: 14)) == ImageStore.pictureSourceSide)
        #expect(GoalDetailHeader.sourceSide(cell: PixelSize(width: 20, height: 40)) == 512)
    }
}
