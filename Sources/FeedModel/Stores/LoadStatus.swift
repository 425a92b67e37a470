/// Where a piece of data stands, drawn in place by the screens (never a modal).
public enum LoadStatus: Equatable, Sendable {
    case idle
    case loading
    case loaded
    case failed(String)

    public var isLoading: Bool { self == .loading }

    public var failureMessage: String? {
        if case .failed(let message) = self { return message }
        return nil
    }
}
