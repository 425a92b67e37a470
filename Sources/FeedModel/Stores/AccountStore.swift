import Foundation

/// The account behind the source (holder, numbers, balance) for the header, for sources that
/// have one (`SavingsAPI.account()`); the others leave it nil. Loaded at start and again after
/// money moved; a failed load keeps what was shown.
@MainActor
public final class AccountStore {
    public private(set) var account: Account?
    public private(set) var isBusy = false
    private let api: any SavingsAPI
    private let events: EventSink<StoreEvent>
    private var generation = 0

    public init(api: any SavingsAPI, account: Account? = nil, events: EventSink<StoreEvent> = .ignored) {
        self.api = api
        self.account = account
        self.events = events
    }

    /// Asks for the account (again); an older answer still on its way is dropped.
    public func load() {
        generation += 1
        let generation = self.generation
        isBusy = true
        let api = self.api
        Task { [weak self] in
            let account = try? await api.account()
            self?.finish(account, generation: generation)
        }
    }

    private func finish(_ account: Account?, generation: Int) {
        guard generation == self.generation else { return }
        isBusy = false
        if let account { self.account = account }
        events.send(.account)
    }
}
