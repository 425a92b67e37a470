import FeedModel
import Foundation
import TermImage
import TermUI

// What a screen may read of each store, and nothing else: `ScreenData` holds the stores as
// these, so a screen that tried to load, save or fetch would not compile. Work for a store is a
// `Command`, carried out by `CommandRunner`, the one place that holds the stores themselves.

/// The goals, their feeds and rules, as loaded.
@MainActor protocol GoalsReading: AnyObject {
    var goals: [Goal] { get }
    var rulesById: [Int: SavingsRule] { get }
    var status: LoadStatus { get }
    var cachedAt: Date? { get }
    var version: Int { get }
    func goal(id: GoalID) -> Goal?
    func feed(for goalId: GoalID) -> GoalFeedState
}

/// The activity feed as loaded.
@MainActor protocol FeedReading: AnyObject {
    var activities: [Activity] { get }
    var phase: ActivityPager.Phase { get }
    var listIdentity: Int { get }
    var version: Int { get }
    var pager: ActivityPager { get }
    var isBusy: Bool { get }
}

/// People by id, as known.
@MainActor protocol UsersReading: AnyObject {
    func lookup(_ id: Int) -> UserLookup
    func displayName(for id: Int) -> String
}

/// The week shown on the Round-ups tab and its saving.
@MainActor protocol RoundUpsReading: AnyObject {
    var week: Week { get }
    var accountCurrency: Currency { get }
    var calendar: Calendar { get }
    var status: LoadStatus { get }
    var summary: RoundUp.Summary? { get }
    var transfer: RoundUpStore.Transfer? { get }
    var progress: RoundUpSaver.Progress? { get }
    var history: [WeekTotal] { get }
    var historyStatus: LoadStatus { get }
    var currentWeek: Week { get }
    var isCurrentWeek: Bool { get }
    var canShowNextWeek: Bool { get }
    var saveProblem: RoundUpStore.SaveProblem? { get }
    var unsavedTotal: Money? { get }
    var isBusy: Bool { get }
}

/// The savings rules as the Rules tab shows them.
@MainActor protocol RulesReading: AnyObject {
    var file: RulesFile { get }
    var week: Week { get }
    var status: LoadStatus { get }
    var lines: [RuleLine] { get }
    var lastWeek: [RuleLine] { get }
    var transfers: [SavedRoundUp] { get }
    var transfersVersion: Int { get }
    var isSaving: Bool { get }
    var report: RulesReport? { get }
    var saves: Int { get }
    var backtest: (rule: String, weeks: Result<[RuleBacktestWeek], RulesStore.BookProblem>)? { get }
    var readOnlyFile: String? { get }
    var writeProblem: String? { get }
    var isCurrentWeek: Bool { get }
    var canShowNextWeek: Bool { get }
    var lastWeekOver: Week { get }
}

/// A goal being created.
@MainActor protocol GoalCreatorReading: AnyObject {
    var phase: GoalCreator.Phase { get }
    var isBusy: Bool { get }
}

/// The sign-in form's token check.
@MainActor protocol TokenCheckReading: AnyObject {
    var answer: Result<Void, SignInRefusal>? { get }
}

/// Pictures as they have arrived: drawing reads them, `want` (after the frame) asks for them.
@MainActor protocol PicturesReading: AnyObject {
    var cellPixels: PixelSize? { get }
    func image(for url: URL?, columns: Int, rows: Int) -> HalfBlockImage?
    func aspectRatio(for url: URL?) -> Double?
    func hasFailed(_ url: URL) -> Bool
}

extension GoalStore: GoalsReading {}
extension ActivityFeed: FeedReading {}
extension UserDirectory: UsersReading {}
extension RoundUpStore: RoundUpsReading {}
extension GoalCreator: GoalCreatorReading {}
extension RulesStore: RulesReading {}
extension TokenCheck: TokenCheckReading {}
extension ImageStore: PicturesReading {}
