import FeedModel
import Foundation
import TermImage
import TermUI

/// Tab 4: the achievements file's title, then each achievement by level with its progress and
/// its picture (`bg_image_url`, a level badge without one); locked ones dimmed and marked.
/// `f` steps the filter through all, done, in progress and locked (the title says which).
@MainActor
final class AchievementsScreen: TabScreen, ListScreen {
    nonisolated static let title = "Achievements"
    /// Its own keys: `f` steps through all, done, in progress and locked.
    enum Action: String, ScreenAction {
        case cycleShow = "show-next"
    }

    nonisolated static let keyMap: KeyMap<AppAction> = {
        var map = KeyMap<AppAction>()
        map.bind([.char("f")], to: Action.cycleShow, help: "show all, done, in progress or locked", section: "Achievements")
        return map
    }()

    /// Which achievements the list shows.
    enum Show: CaseIterable {
        case all, done, inProgress, locked

        var label: String {
            switch self {
            case .all: "all"
            case .done: "done"
            case .inProgress: "in progress"
            case .locked: "locked"
            }
        }

        func includes(_ achievement: Achievement) -> Bool {
            switch self {
            case .all: true
            case .done: AchievementsScreen.isDone(achievement)
            case .inProgress: !achievement.isLocked && !AchievementsScreen.isDone(achievement)
            case .locked: achievement.isLocked
            }
        }

        var next: Show { Show.allCases[(Show.allCases.firstIndex(of: self)! + 1) % Show.allCases.count] }
    }

    var model = ListModel()
    var show = Show.all {
        didSet { list.top() }
    }
    /// Whether the last frame had room for pictures (what `shown` reports).
    private var drewPictures = false

    /// Cells of a row's picture: 4 × 1 (4 × 2 pixels), from rows this wide.
    static let pictureSize = (columns: 4, rows: 1)
    static let pictureMinWidth = 40

    init() {}

    nonisolated static func isDone(_ achievement: Achievement) -> Bool {
        !achievement.isLocked && achievement.total > 0 && achievement.progress >= achievement.total
    }

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        if Action(action) == .cycleShow {
            show = show.next
            return .consumed
        }
        if action == .open, let achievement = selectedRow(data) { return .present(Self.card(achievement)) }
        return navigate(action, data) ? .consumed : .ignored
    }

    /// Those `f` shows; the filter finds "level N" and "locked".
    func rows(_ data: ScreenData) -> [Achievement] { data.achievements.achievements.filter(show.includes) }
    func identity(_ achievement: Achievement) -> AnyHashable { achievement.id }
    func matches(_ achievement: Achievement, filter: String, _ data: ScreenData) -> Bool {
        "level \(achievement.level)".localizedCaseInsensitiveContains(filter)
            || (achievement.isLocked && "locked".localizedCaseInsensitiveContains(filter))
    }

    /// Enter: the achievement in full.
    static func card(_ achievement: Achievement) -> DetailCard {
        let state = achievement.isLocked ? "locked" : isDone(achievement) ? "done" : "in progress"
        return DetailCard(title: "Level " + achievement.level, fields: [
            DetailCard.field("Points", [Span("\(achievement.progress) of \(achievement.total)")]),
            DetailCard.field("State", [Span(state, achievement.isLocked ? Style(fg: .role(.muted)) : .bold)]),
        ])
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        var list = self.list
        Self.render(state: self, achievements: visible(data), list: &list, file: data.achievements, colors: data.colors, images: data.images,
                    into: &buffer, area: area)
        return Layout(area: area, list: list)
    }

    func laidOut(_ layout: Layout, _ data: ScreenData) {
        list = layout.list ?? list
        drewPictures = data.images != nil && layout.area.width >= Self.pictureMinWidth
    }

    /// The pictures of the rows on screen (the core fetches them; drawing never does).
    func shown(_ data: ScreenData) -> Shown {
        var shown = Shown()
        guard drewPictures else { return shown }
        let achievements = visible(data)
        for index in list.visibleRange(count: achievements.count) { shown.add(picture: achievements[index].backgroundImageURL) }
        return shown
    }

    static func render(state: AchievementsScreen, achievements: [Achievement], list: inout ListState, file: AchievementsFile, colors: Bool = false, images: (any PicturesReading)? = nil,
                       into buffer: inout CellBuffer, area: Rect) {
        guard area.height > 0 else { return }
        let title = file.title.isEmpty ? "Achievements" : file.title
        let written = buffer.write(title, x: area.x + 1, y: area.y, maxWidth: area.width - 2,
                                   style: Style(fg: .role(.title), attributes: .bold))
        let showing = "  · showing \(state.show.label) (\(achievements.count) of \(file.achievements.count)) · f: filter"
        buffer.write(showing, x: area.x + 1 + written, y: area.y, maxWidth: max(0, area.width - 2 - written), style: Style(fg: .role(.muted)))
        let body = area.rows([.length(2), .fill(1)])[1]
        list.clamp(count: achievements.count)
        guard !achievements.isEmpty else {
            let text = !state.filter.isEmpty ? "No achievement matches “\(state.filter)”. Esc clears the filter."
                : state.show == .all ? "No achievements yet." : "No achievement is \(state.show.label). f shows the others."
            buffer.write(text, x: body.x + 1, y: body.y, maxWidth: body.width - 2, style: Style(fg: .role(.muted)))
            return
        }
        let pictures = area.width >= pictureMinWidth
        let drawn = state.model.view.draw(into: &buffer, rect: body, count: achievements.count, state: &list) { buffer, index, row, _ in
            drawRow(achievements[index], filter: state.filter, pictures: pictures, colors: colors, images: images, into: &buffer, row: row)
        }
        // The selection recolours its row: the selected picture is drawn again on top.
        if pictures, images != nil, drawn.contains(list.selected) {
            let y = body.y + list.selected - drawn.lowerBound
            Pictures.draw(achievements[list.selected].backgroundImageURL, images: images, columns: pictureSize.columns,
                          rows: pictureSize.rows, into: &buffer, x: body.x + 1, y: y, clip: body)
        }
    }

    /// The level badge: "L1" on the level's colour (reverse video without colour), dim when locked.
    static func badge(_ achievement: Achievement, colors: Bool) -> Span {
        var span = Pictures.monogramSpan(initials: "L" + achievement.level, name: "level " + achievement.level,
                                         width: pictureSize.columns, colors: colors)
        if achievement.isLocked { span.style = span.style.adding(.dim) }
        return span
    }

    static func drawRow(_ achievement: Achievement, filter: String = "", pictures: Bool = false, colors: Bool = false,
                        images: (any PicturesReading)? = nil, into buffer: inout CellBuffer, row: Rect) {
        let locked = achievement.isLocked
        let base: Style = locked ? .dim : .plain
        var x = row.x + 1
        if pictures {
            // The picture where the store has it, else the level badge.
            if !Pictures.draw(achievement.backgroundImageURL, images: images, columns: pictureSize.columns, rows: pictureSize.rows,
                              into: &buffer, x: x, y: row.y, clip: row) {
                buffer.write([badge(achievement, colors: colors)], x: x, y: row.y, maxWidth: pictureSize.columns)
            }
            x += pictureSize.columns + 1
        }
        x += buffer.write(DisplayFormat.highlighting([Span(TextWidth.pad("Level \(achievement.level)", to: 10), base.adding(.bold))], filter),
                          x: x, y: row.y)
        let points = "\(achievement.progress) / \(achievement.total) pts"
        var status = locked ? "🔒 locked" : (isDone(achievement) ? "✓ done" : "")
        var right = "  " + TextWidth.pad(points, to: 14, alignRight: true) + "  " + TextWidth.pad(status, to: 9)
        // Narrow: the state's mark alone rather than a word cut ("🔒 lo…", issue 50, item 12).
        if x + TextWidth.of(right) > row.maxX {
            status = locked ? "🔒" : (isDone(achievement) ? "✓" : "")
            right = "  " + TextWidth.pad(points, to: 14, alignRight: true) + " " + TextWidth.pad(status, to: 2)
        }
        let rightWidth = TextWidth.of(right)
        let barWidth = min(30, row.maxX - x - rightWidth - 1)
        if barWidth >= 4 {
            let fraction = achievement.total > 0 ? Double(achievement.progress) / Double(achievement.total) : 0
            var bar = ProgressBar(fraction: fraction, showsPercentage: false)
            if locked {
                bar.fillStyle = .dim
                bar.trackStyle = .dim
            }
            bar.draw(into: &buffer, x: x, y: row.y, width: barWidth)
            x += barWidth
        }
        buffer.write(right, x: x, y: row.y, maxWidth: row.maxX - x, style: locked ? Style(attributes: .dim) : .plain)
    }
}

/// The achievements file shipped with the app (the recorded file of seed 004).
public enum BundledAchievements {
    /// The achievements the app ships with, in the binary itself: a SwiftPM resource bundle
    /// would have to stand beside the binary, and an installed binary (/usr/bin) has none.
    public static func load() throws(AchievementsLoader.Failure) -> AchievementsFile {
        try AchievementsLoader.decode(Data(json.utf8), name: "the bundled achievements")
    }

    static let json = """
        {
          "success": true,
          "status": 200,
          "overview": {
            "title": "Smart Investing"
          },
          "achievements": [
            {
              "id": 4,
              "level": "1",
              "progress": 10,
              "total": 50,
              "bg_image_url": "https://cdn.zeplin.io/5a5f7e1b4f9f24b874e0f19f/screens/C850B103-B8C5-4518-8631-168BB42FFBBD.png",
              "accessible": true
            },
            {
              "id": 3,
              "level": "2",
              "progress": 0,
              "total": 50,
              "bg_image_url": "https://cdn.zeplin.io/5a5f7e1b4f9f24b874e0f19f/screens/341E40C8-1C2A-400C-B67D-F490B74BDD81.png",
              "accessible": false
            },
            {
              "id": 5,
              "level": "3",
              "progress": 0,
              "total": 50,
              "bg_image_url": "https://cdn.zeplin.io/5a5f7e1b4f9f24b874e0f19f/screens/C60F6868-A0CD-4D9D-A3B9-3C460FA989FF.png",
              "accessible": false
            }
          ]
        }
        """
}
