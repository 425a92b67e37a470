/// Facts about this build of qapital-tui.
public enum FeedModelInfo {
    public static let version = "0.1.0"
}
