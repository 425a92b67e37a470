/// Keys bound to one action, with the words the help overlay shows for it.
public struct KeyBinding<Action>: Sendable where Action: Sendable {
    public var keys: [Key]
    public var action: Action
    public var help: String
    public var section: String

    public init(_ keys: [Key], _ action: Action, help: String, section: String) {
        self.keys = keys
        self.action = action
        self.help = help
        self.section = section
    }

    /// The keys as the help shows them, e.g. "j ↓".
    public var keyLabel: String { keys.map(\.displayName).joined(separator: " ") }
}
