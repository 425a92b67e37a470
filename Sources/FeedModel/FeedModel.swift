/// FeedModel: the data layer of qapital-tui. Foundation only; no UI.
public enum FeedModelInfo {
    public static let version = "0.1.0"
}
