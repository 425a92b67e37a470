/// A goal's own colour where its source gives one (a Monzo pot's `style`): one of a few hues,
/// which the screens draw in a theme's colour role, never a colour the server names. Nil: the
/// goal's monogram takes a colour from its name.
public enum GoalTint: String, CaseIterable, Codable, Hashable, Sendable {
    case blue, green, yellow, orange, pink
}
