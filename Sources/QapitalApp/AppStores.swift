import FeedModel
import Foundation
import TermImage

/// The stores the screens read, made from one API and posting into the one event stream, and
/// whether any of them has work in flight (how the loop knows the app has settled).
@MainActor
final class AppStores {
    let goals: GoalStore
    let feed: ActivityFeed
    let users: UserDirectory
    let roundUps: RoundUpStore
    let goalCreator: GoalCreator
    /// The savings rules, where the command line gave a `RulesBook`.
    let rules: RulesStore?
    /// The bank account behind the source, for the status bar (nil for sources without one).
    let account: AccountStore
    /// Pictures, when shown at all (with colours and without `--no-images`).
    let images: ImageStore?
    /// A new token's check, for a source whose token can be refused mid-session.
    let tokenCheck: TokenCheck?
    /// The offline cache behind the API, if there is one (checkpointed on quit).
    let cache: (any OfflineCache)?

    init(api: any SavingsAPI, configuration: AppCore.Configuration, cache: (any OfflineCache)?, saver: RoundUpSaver,
         signIn: AppCore.SignInCapability? = nil, rulesBook: (any RulesBook)? = nil, events: EventSink<StoreEvent>, pictureArrived: @escaping @MainActor (URL) -> Void,
         now: @escaping @Sendable () -> Date) {
        self.cache = cache
        users = UserDirectory(api: api, now: now, events: events)
        goals = GoalStore(api: api, users: users, cache: cache, events: events)
        feed = ActivityFeed(api: api, cache: cache, now: now, events: events)
        roundUps = RoundUpStore(api: api, goals: goals, accountCurrency: configuration.currency, roundUpStep: configuration.roundUpStep,
                                calendar: Week.calendar(in: configuration.timeZone), now: now, events: events, saver: saver)
        goalCreator = GoalCreator(api: api, goals: goals, events: events)
        rules = rulesBook.map { RulesStore(book: $0, calendar: Week.calendar(in: configuration.timeZone), now: now, events: events) }
        account = AccountStore(api: api, events: events)
        tokenCheck = signIn.map { TokenCheck($0, events: events) }
        if configuration.images && configuration.colors {
            // The demo's own pictures come from the API in process; everything else over HTTP(S).
            // Where the terminal draws pictures: each kept large enough for the goal detail's large
            // photo, and twice the room for them (a frame's pictures are at the cell's resolution).
            let cell = configuration.pictureCellPixels
            images = ImageStore(byteLimit: cell == nil ? ImageStore.defaultByteLimit : 2 * ImageStore.defaultByteLimit,
                                sourceSide: cell.map { GoalDetailHeader.sourceSide(cell: $0) }, schemes: configuration.pictureSchemes,
                                cellPixels: cell, arrived: pictureArrived) { url in
                try await api.imageData(at: url)
            }
        } else {
            images = nil
        }
    }

    /// After a frame, what it showed: users and pictures to fetch (pictures no longer shown are
    /// cancelled), and the feed's position, from which the pager decides to fetch older activity.
    func ask(for shown: Shown) {
        users.request(shown.users)
        images?.want(shown.pictures)
        if let viewport = shown.feedViewport { feed.viewportChanged(cursor: viewport.cursor, screenHeight: viewport.screenHeight) }
    }

    /// Some store has a request in flight.
    var isBusy: Bool {
        goals.isBusy || feed.isBusy || users.isBusy || roundUps.isBusy || goalCreator.isBusy || account.isBusy
            || (images?.isBusy ?? false) || (tokenCheck?.isBusy ?? false) || (rules?.isBusy ?? false)
    }
}
