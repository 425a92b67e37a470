import TermUI

/// A frame: overlays lay out, the frame is drawn reading only, and what it laid out and showed
/// comes back to the core once it is on screen (bubbletea's `View`, which only reads; work comes
/// from `Update`).
extension AppCore {
    /// Before a frame: overlays take their room in `area` (the help reflows to the width).
    public func layOut(_ area: Rect) {
        if let body = frame.body(of: area, data) { for overlay in overlays { overlay.layOut(area: body, data) } }
    }

    /// The frame is drawn, reading only: nothing changes and no store is asked for anything
    /// here. What the frame laid out and showed comes back in `drawn` once it is on screen.
    public func render(into buffer: inout CellBuffer) -> DrawnFrame {
        return DrawnFrame(width: buffer.area.width, layout: frame.draw(into: &buffer, data), frame: frame)
    }

    /// The frame as the core holds it now.
    var frame: AppFrame { AppFrame(tabBar: tabBar, stack: stacks[tabIndex], overlays: overlays, status: status, cachedAt: goals.cachedAt) }

    /// After a frame: the screen keeps its layout (paging and clicks follow what is on screen),
    /// and the stores are asked for what it showed (users, pictures, older activity).
    public func drawn(_ drawn: DrawnFrame) {
        width = drawn.width
        guard let layout = drawn.layout else { return }
        screen.laidOut(layout, data)
        stores.ask(for: drawn.frame.shown(data))
    }

    /// A frame drawn and handed back at once (the tests and the bench, without a terminal).
    public func drawFrame(into buffer: inout CellBuffer) {
        layOut(buffer.area)
        drawn(render(into: &buffer))
    }
}

/// What a frame drew: its width, what the screen laid out, and the frame, which says what it showed.
@MainActor
public struct DrawnFrame {
    let width: Int
    let layout: Layout?
    let frame: AppFrame
}
