import Foundation

/// What one data source is, in one place: its name on the command line, in the config file and
/// in `serve --api`; where it lives; how a user signs in; where its token comes from; and what it
/// can do. Each source's target declares its own (`StarlingAPI.source`, `MonzoAPI.source`…);
/// the executable lists them once (`SourceRegistry.all`) and everything else reads that list.
public struct SourceDescription: Sendable, Hashable {
    /// How a user gets in.
    public enum SignIn: String, Sendable, Hashable {
        /// Nothing to sign in to (the demo).
        case none
        /// A bearer token if the server wants one, not checked before the app starts (the Qapital API).
        case optionalToken
        /// A token checked with the bank before the app opens; without one, the sign-in form (Starling).
        case token
        /// A token as above, or the user's own OAuth client through `qapital-tui login NAME` (Monzo).
        case tokenOrOAuth

        /// Whether the token is checked (and an account chosen) before the app opens.
        public var checksToken: Bool { self == .token || self == .tokenOrOAuth }
    }

    /// What the source can do besides reading.
    public struct Abilities: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `n`: a new goal through the API.
        public static let createGoals = Abilities(rawValue: 1 << 0)
        /// `s`: round-ups moved into a goal through the API.
        public static let moveMoney = Abilities(rawValue: 1 << 1)
        /// Goals shared with other people (the People tab has someone to show).
        public static let sharedGoals = Abilities(rawValue: 1 << 2)
        /// A bank account of its own: holder, numbers, balance, currency (`--currency` does not apply).
        public static let bankAccount = Abilities(rawValue: 1 << 3)
    }

    /// `--source NAME`, `source = "NAME"`, `serve --api NAME`: lowercase, one word.
    public let name: String
    /// "Starling Bank": the sign-in form's title and the help's.
    public let title: String
    /// The API's base URL; nil when the user names the server (`--api-url`).
    public let baseURL: URL?
    /// A sandbox's base URL (`--sandbox`), if the source has one.
    public let sandboxURL: URL?
    public let signIn: SignIn
    /// The environment variables a token is read from, in order, after `--token`.
    public let tokenVariables: [String]
    public let abilities: Abilities
    /// What `n` says when the source cannot create goals.
    public let noGoalCreation: String?
    /// What `s` says (and the Round-ups tab shows) when the source cannot move money (Up moves
    /// its round-ups itself).
    public let noMoneyMoves: String?
    /// What the Rules tab's `s` and `rules --save` say when the source cannot move money; nil:
    /// `noMoneyMoves` (or it can).
    public let noRuleMoves: String?
    /// What Activity's last row says before the oldest date the source gave, for a source whose
    /// history is what a bank chose to give ("the bank gave history from"); nil: the usual words.
    public var historyBeginning: String?
    /// The request that checks a token ("GET /api/v2/accounts"), shown on the sign-in form.
    public let tokenCheck: String?
    /// What the bank calls the secret the sign-in form takes ("Access token", "API key",
    /// "Setup token"): the field's label and its "paste it first" line.
    public let tokenLabel: String
    /// What the field is called unless a source says otherwise.
    public static let defaultTokenLabel = "Access token"
    /// Keys the config file's `[NAME]` table may set (Monzo: its OAuth client).
    public let configKeys: [String]
    /// Where the source is documented ("docs/starling.md").
    public let documentation: String

    public init(name: String, title: String, baseURL: URL? = nil, sandboxURL: URL? = nil, signIn: SignIn,
                tokenVariables: [String] = [], abilities: Abilities, noGoalCreation: String? = nil, tokenCheck: String? = nil,
                configKeys: [String] = [], documentation: String, noMoneyMoves: String? = nil, noRuleMoves: String? = nil,
                tokenLabel: String = defaultTokenLabel) {
        self.name = name
        self.title = title
        self.baseURL = baseURL
        self.sandboxURL = sandboxURL
        self.signIn = signIn
        self.tokenVariables = tokenVariables
        self.abilities = abilities
        self.noGoalCreation = noGoalCreation
        self.noMoneyMoves = noMoneyMoves
        self.noRuleMoves = noRuleMoves ?? noMoneyMoves
        self.tokenCheck = tokenCheck
        self.tokenLabel = tokenLabel
        self.configKeys = configKeys
        self.documentation = documentation
    }

    public func can(_ ability: Abilities) -> Bool { abilities.contains(ability) }
}

/// A bank's API for one account, opened with a token checked at sign-in (Starling, Monzo): what
/// the app needs besides the `SavingsAPI` to keep its cache and saved weeks apart per account,
/// and to sign in again when the bank refuses the token in use.
public protocol BankAPI: SavingsAPI {
    var baseURL: URL { get }
    /// The bank's id for the account: the offline cache's partition and the saved weeks' identity.
    var accountId: String { get }
    var accountCurrency: Currency { get }
    /// Records the bank's answers held that could not be read (for the status bar).
    var skippedRecords: SkippedRecords? { get }
    /// Whether the bank refused the token in use (the app then asks for another).
    var tokenRefused: Bool { get }
    /// Whether the bank's last answer to the token in use was "approve it in the bank's app"
    /// (`APIError.awaitsApproval`), with no answer since: the app says so and waits for the user.
    var awaitsApproval: Bool { get }
    /// Checks `token` and, when it opens this same account, uses it from now on. Throws the
    /// refusal in one line, never quoting the token.
    func replaceToken(_ token: String) async throws(APIError)
    /// A short note the status bar keeps beside the header while it holds (Up: its rate limit
    /// running low); nil: none.
    var statusNote: String? { get }
    /// What a headless command says on stderr before it writes anything: the bank's consent
    /// ending soon, with the way out; nil: nothing.
    var headlessWarning: String? { get }
    /// Before `r` reaches the bank: a question when a read would pass the bank's own budget
    /// ("read anyway? read 5 today [y/N]"); nil: none due. `readPastBudget` is its yes.
    var readQuestion: String? { get }
    func readPastBudget()
    /// What the bank says of each activity beyond its row, by activity id (`activity --output
    /// json`'s `account` and `pending`); empty: nothing more.
    var activityDetails: [String: ActivityDetails] { get }
    /// Each account a whole export opens and asserts on its own (`export --output ledger`);
    /// empty: the source's one balance (`Account.feedBalance`) instead.
    var bookedBalances: [BookedBalance] { get }
    /// The next `account()` answers `account` without asking (the start read it when it checked
    /// the token): one request per resource a start. Nothing by default.
    func answerNextAsk(with account: Account)
}

extension BankAPI {
    public var statusNote: String? { nil }
    public var headlessWarning: String? { nil }
    public var readQuestion: String? { nil }
    public var activityDetails: [String: ActivityDetails] { [:] }
    public var bookedBalances: [BookedBalance] { [] }
    public func readPastBudget() {}
    public var awaitsApproval: Bool { false }
    public func answerNextAsk(with account: Account) {}
}

/// An activity's account and whether it is pending, for a bank whose activity merges accounts.
public struct ActivityDetails: Equatable, Sendable {
    /// A stable id of the account (never a secret or a session's id) and its shown name.
    public var accountId: String
    public var accountName: String
    public var pending: Bool

    public init(accountId: String, accountName: String, pending: Bool) {
        self.accountId = accountId
        self.accountName = accountName
        self.pending = pending
    }
}
