import FeedModel
import Foundation
import TermUI

extension AppCore {
    public struct Configuration {
        public var sourceName: String
        public var colors: Bool
        public var timeZone: TimeZone = .current
        /// The account's currency: goals are in it, and only round-ups in it can be saved.
        public var currency: Currency = .usd
        /// What payments in the account's currency round up to, in minor units (`--round-up-step`,
        /// given in whole units); nil: the currency's default (a whole unit, ¥100 for JPY).
        public var roundUpStep: Int64?
        /// How long an error stays in the status bar.
        public var errorLifetime: TimeInterval = 6
        /// Goal images and avatars (off with `--no-images`; never without colours).
        public var images: Bool = true
        /// The URL schemes whose pictures are fetched (the demo adds its own in-process one).
        public var pictureSchemes: Set<String> = ["http", "https"]
        /// Keys the config file binds instead of the defaults.
        public var keys = KeyOverrides()
        /// Why the source cannot create goals (`n` says it instead of opening the form); nil: it can.
        public var noGoalCreation: String?
        /// Why the source cannot move money (`s` says it, the Round-ups tab shows it: Up moves its
        /// round-ups itself); nil: it can.
        public var noMoneyMoves: String?
        /// What the Rules tab says when the source cannot move money; nil: `noMoneyMoves`.
        public var noRuleMoves: String?
        /// What Activity's last row says before the oldest date the source gave ("the bank gave
        /// history from"); nil: "Beginning of history (DATE)".
        public var historyBeginning: String?
        /// The terminal's cell in pixels where it draws pictures itself (kitty, sixel); nil:
        /// pictures are half blocks.
        public var pictureCellPixels: PixelSize?
        /// For a screen reader (`--screen-reader`, `ACCESSIBLE=1`): the spinner in words, no
        /// pictures (the terminal shows the cursor on the selected row: `NcursesTerminal`).
        public var screenReader = false

        public init(sourceName: String, colors: Bool, timeZone: TimeZone = .current, currency: Currency = .usd,
                    errorLifetime: TimeInterval = 6, images: Bool = true, pictureSchemes: Set<String> = ["http", "https"],
                    keys: KeyOverrides = KeyOverrides(), roundUpStep: Int64? = nil, pictureCellPixels: PixelSize? = nil) {
            self.keys = keys
            self.pictureCellPixels = pictureCellPixels
            self.roundUpStep = roundUpStep
            self.sourceName = sourceName
            self.colors = colors
            self.timeZone = timeZone
            self.currency = currency
            self.errorLifetime = errorLifetime
            self.images = images
            self.pictureSchemes = pictureSchemes
        }
    }

    /// What the data source can do besides the `SavingsAPI`, handed in by the command that built it.
    public struct Capabilities: Sendable {
        /// The offline cache behind the API: shown first while the server is asked.
        public var cache: (any OfflineCache)?
        /// Whether the server is reachable (the status bar says offline; the app retries).
        public var connectivity: Connectivity?
        /// `r` on the activity feed: fetch again what the cache would answer.
        public var refreshCache: (@Sendable () -> Void)?
        /// Notes about records the source's answers held but it could not read (for the status bar).
        public var skippedRecords: SkippedRecords?
        /// Asking for another token when the server refuses the one in use (Starling).
        public var signIn: SignInCapability?
        /// Where every error the status bar shows is written too (`--log-file`).
        public var errorLog: (@Sendable (String) -> Void)?
        /// A short note the status bar keeps beside the header while it holds (Up's rate limit
        /// running low); read when drawing, so it must be cheap.
        public var sourceNote: (@Sendable () -> String?)?
        /// Who saves round-ups and where the saved weeks are kept (the key of a week's transfer
        /// comes from it); by default the demo's, kept for this run only.
        public var roundUpSaver = RoundUpSaver(identity: .demo, record: MemoryRoundUpRecord())
        /// The savings rules (the rules file, their figures, the settlement) for the Rules tab;
        /// nil: the tab says there are none to read.
        public var rulesBook: (any RulesBook)?
        /// `r` past the source's own budget of reads (Enable Banking's four a day): the question
        /// to ask first (nil: none due), and its yes.
        public var readQuestion: (@Sendable () -> String?)?
        public var readAnyway: (@Sendable () -> Void)?
        /// Signing in at the bank again (`L`), for a source that signs in through a consent there.
        public var consentSignIn: ConsentSignInCapability?

        public init(cache: (any OfflineCache)? = nil, connectivity: Connectivity? = nil, refreshCache: (@Sendable () -> Void)? = nil,
                    skippedRecords: SkippedRecords? = nil, signIn: SignInCapability? = nil) {
            self.cache = cache
            self.connectivity = connectivity
            self.refreshCache = refreshCache
            self.skippedRecords = skippedRecords
            self.signIn = signIn
        }
    }

    /// A source whose token can be refused and replaced while the app runs.
    public struct SignInCapability: Sendable {
        /// Where the token goes ("api.starlingbank.com"), shown on the form.
        public var origin: String
        /// The form's title ("Starling Bank") and the request that checks a token.
        public var title = "Bank"
        public var tokenCheck = "GET /api/v2/accounts"
        /// The form's label for the token ("Access token", "API key").
        public var tokenLabel = SourceDescription.defaultTokenLabel
        /// Whether the server refused the token in use.
        public var isRefused: @Sendable () -> Bool
        /// Whether the bank waits for the customer to approve the token in its app (Monzo's
        /// strong customer authentication, in the middle of a session): no form then, the status
        /// bar says to approve it and retry; nothing is asked again until the user does.
        public var awaitsApproval: @Sendable () -> Bool = { false }
        /// Checks a token; when accepted the source uses it from then on (kept between runs if
        /// `remember`) and the answer is nil, else the one-line refusal.
        public var check: @Sendable (_ token: String, _ remember: Bool) async -> SignInRefusal?

        public init(origin: String, isRefused: @escaping @Sendable () -> Bool,
                    check: @escaping @Sendable (_ token: String, _ remember: Bool) async -> SignInRefusal?) {
            self.origin = origin
            self.isRefused = isRefused
            self.check = check
        }
    }
}
