import TermUI

/// The one list model every list in the app keeps (the tabs, a goal's feed, a person, the goal
/// picker): the selection and scroll (`ListState`), the filter (`/`; a new filter starts at the
/// top), and the rows that came above the selection unseen ("N new ↑" beside "N of M", which
/// `view` draws). Moves, pages, `n`/`N` and clicks go through it; a screen keeps only what its
/// rows are and look like.
struct ListModel {
    var list = ListState()
    var filter = "" {
        didSet { list.top() }
    }
    /// Rows a refresh put above the selection that are not in sight yet.
    var newAbove = 0

    /// The rows `matches` lets through the filter, in their order (all of them without one).
    func filtered<Row>(_ rows: [Row], matches: (Row, String) -> Bool) -> [Row] {
        filter.isEmpty ? rows : rows.filter { matches($0, filter) }
    }

    /// The row selected among `rows`, if any.
    func selected<Row>(in rows: [Row]) -> Row? {
        list.selected < rows.count ? rows[list.selected] : nil
    }

    /// A list key (`ListState.navigate`); once the selection is back among the new rows at the
    /// top, they count as seen. False for an action that is no list move.
    mutating func navigate(_ action: AppAction, count: Int) -> Bool {
        guard list.navigate(action, count: count) else { return false }
        if list.selected < newAbove { newAbove = 0 }
        return true
    }

    /// A left click at a cell: where it fell among the rows the last frame drew.
    mutating func click(x: Int, y: Int, count: Int) -> ListClick {
        guard let index = list.index(atX: x, y: y, count: count) else { return .outside }
        if index == list.selected { return .selected }
        list.selected = index
        list.clamp(count: count)
        return .moved
    }

    /// How the list draws: rows, scrollbar, "N of M" and "N new ↑".
    var view: ListView {
        var view = ListView()
        view.newAbove = newAbove
        return view
    }
}

/// A screen whose list is a `ListModel`: its filter and list are the model's. The Activity tab
/// and a person's page, whose rows are grouped under headings, are this; the other lists are
/// `ListScreen`s.
@MainActor
protocol ListModelScreen: Screen {
    var model: ListModel { get set }
}

extension ListModelScreen {
    var filter: String {
        get { model.filter }
        set { model.filter = newValue }
    }

    var list: ListState {
        get { model.list }
        set { model.list = newValue }
    }
}

/// A screen that is a list of rows: selecting, keeping the selection through a cleared filter
/// and clicking come with its `ListModel`. It says what its rows are (`rows`), what a filter
/// finds in one (`matches`) and what names one across loads (`identity`); drawing them stays its own.
@MainActor
protocol ListScreen: ListModelScreen {
    associatedtype Row
    /// Every row, before the filter.
    func rows(_ data: ScreenData) -> [Row]
    /// Whether the filter's text is found in `row`.
    func matches(_ row: Row, filter: String, _ data: ScreenData) -> Bool
    /// What names `row` across loads (a goal's id), so that clearing the filter keeps it selected.
    func identity(_ row: Row) -> AnyHashable
}

extension ListScreen {
    /// The rows the filter lets through: what the list shows.
    func visible(_ data: ScreenData) -> [Row] {
        model.filtered(rows(data)) { matches($0, filter: $1, data) }
    }

    func selectedRow(_ data: ScreenData) -> Row? { model.selected(in: visible(data)) }

    func selection(_ data: ScreenData) -> AnyHashable? { selectedRow(data).map(identity) }

    func select(_ selection: AnyHashable, _ data: ScreenData) {
        let rows = visible(data)
        model.list.select(rows.firstIndex { identity($0) == selection }, count: rows.count)
    }

    /// A list key over the visible rows; false for an action that is no list move.
    func navigate(_ action: AppAction, _ data: ScreenData) -> Bool {
        model.navigate(action, count: visible(data).count)
    }

    /// Another row is selected; the selected one opens, as Enter does.
    func click(x: Int, y: Int, _ data: ScreenData) -> Outcome {
        switch model.click(x: x, y: y, count: visible(data).count) {
        case .outside: .ignored
        case .moved: .consumed
        case .selected: handle(.enter, action: .open, data)
        }
    }
}
