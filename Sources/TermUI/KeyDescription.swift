/// Keys the help lists that a `KeyMap` does not dispatch (a dialog or a form handles them).
public struct KeyDescription: Hashable, Sendable {
    public var keys: [Key]
    public var help: String
    public var section: String

    public init(keys: [Key], help: String, section: String) {
        self.keys = keys
        self.help = help
        self.section = section
    }

    public var keyLabel: String { keys.map(\.displayName).joined(separator: " ") }
}
