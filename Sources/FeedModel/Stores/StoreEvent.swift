/// What a store tells the app's event loop (gitui's `AsyncGitNotification`): which of its values
/// changed. The loop reads them from one stream and reacts per event; a store never calls the
/// app back.
public enum StoreEvent: Hashable, Sendable {
    /// The goal list or its load status changed (loaded, shown from the cache, failed, a goal applied).
    case goals
    /// One goal's feed or its status changed.
    case goalFeed(GoalID)
    /// The activity feed changed: a page arrived, a request failed, or it started over.
    case activityPage
    /// A user look-up finished (found, unknown or failed).
    case user(Int)
    /// The round-ups week's payments or their status changed.
    case week
    /// The round-ups transfer changed phase (sending, failed, saved).
    case transfer
    /// A new goal is on its way, or its creation failed.
    case goalCreation
    /// A goal the user created arrived (also shown in the `GoalStore`).
    case goalCreated(Goal)
    /// The account (holder, numbers, balance) was loaded again.
    case account
    /// A token check on the sign-in form finished (accepted or refused).
    case signIn
    /// A consent sign-in at the bank moved on (the address to open, a refusal, signed in).
    case consentSignIn
    /// The savings rules' week, their figures, a save or the rules file changed (`RulesStore`).
    case rules
}

/// Where a store posts its events: the app hands each store the same sink (one stream), tests
/// hand it a probe. Sent on the main actor, where the stores live.
public struct EventSink<Event: Sendable>: Sendable {
    private let deliver: @MainActor @Sendable (Event) -> Void

    public init(_ deliver: @escaping @MainActor @Sendable (Event) -> Void) {
        self.deliver = deliver
    }

    @MainActor
    public func send(_ event: Event) {
        deliver(event)
    }

    /// A sink that drops everything (a store nobody listens to).
    public static var ignored: EventSink { EventSink { _ in } }

    /// The same events, wrapped for a wider stream (e.g. `StoreEvent` into the app's events).
    public func map<Inner: Sendable>(_ transform: @escaping @Sendable (Inner) -> Event) -> EventSink<Inner> {
        let deliver = self.deliver
        return EventSink<Inner> { deliver(transform($0)) }
    }
}
