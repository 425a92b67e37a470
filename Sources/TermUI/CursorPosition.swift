/// A cell of the screen, where the terminal's cursor goes (`CellBuffer.cursor`).
public struct CursorPosition: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(x), \(y))" }
}
