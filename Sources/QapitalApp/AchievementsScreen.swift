import FeedModel
import Foundation
import TermUI

/// Tab 4: the achievements file's title, then each achievement by level with its progress;
/// locked ones dimmed and marked.
@MainActor
final class AchievementsScreen: TabScreen {
    nonisolated static let title = "Achievements"
    var list = ListState()
    var filter = "" {
        didSet { list.top() }
    }

    init() {}

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        return list.navigate(action, count: Self.visible(data.achievements, filter: filter).count) ? .consumed : .ignored
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) {
        Self.render(state: self, file: data.achievements, into: &buffer, area: area)
    }

    static func visible(_ file: AchievementsFile, filter: String) -> [Achievement] {
        guard !filter.isEmpty else { return file.achievements }
        return file.achievements.filter { achievement in
            "level \(achievement.level)".localizedCaseInsensitiveContains(filter)
                || (achievement.isLocked && "locked".localizedCaseInsensitiveContains(filter))
        }
    }

    static func render(state: AchievementsScreen, file: AchievementsFile, into buffer: inout CellBuffer, area: Rect) {
        guard area.height > 0 else { return }
        buffer.write(file.title.isEmpty ? "Achievements" : file.title, x: area.x + 1, y: area.y, maxWidth: area.width - 2,
                     style: Style(fg: .role(.title), attributes: .bold))
        let body = Rect(x: area.x, y: area.y + 2, width: area.width, height: max(0, area.height - 2))
        let achievements = visible(file, filter: state.filter)
        state.list.clamp(count: achievements.count)
        guard !achievements.isEmpty else {
            let text = state.filter.isEmpty ? "No achievements yet." : "No achievement matches “\(state.filter)”. Esc clears the filter."
            buffer.write(text, x: body.x + 1, y: body.y, maxWidth: body.width - 2, style: Style(fg: .role(.muted)))
            return
        }
        ListView().draw(into: &buffer, rect: body, count: achievements.count, state: &state.list) { buffer, index, row, _ in
            drawRow(achievements[index], filter: state.filter, into: &buffer, row: row)
        }
    }

    static func drawRow(_ achievement: Achievement, filter: String = "", into buffer: inout CellBuffer, row: Rect) {
        let locked = achievement.isLocked
        let base: Style = locked ? .dim : .plain
        var x = row.x + 1
        x += buffer.write(DisplayFormat.highlighting([Span(TextWidth.pad("Level \(achievement.level)", to: 10), base.adding(.bold))], filter),
                          x: x, y: row.y)
        let points = "\(achievement.progress) / \(achievement.total) pts"
        let status = locked ? "🔒 locked" : (achievement.progress >= achievement.total && achievement.total > 0 ? "✓ done" : "")
        let right = "  " + TextWidth.pad(points, to: 14, alignRight: true) + "  " + TextWidth.pad(status, to: 9)
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
    public static func load() throws(AchievementsLoader.Failure) -> AchievementsFile {
        guard let url = Bundle.module.url(forResource: "achievements", withExtension: "json") else {
            throw AchievementsLoader.Failure(message: "the bundled achievements file is missing")
        }
        return try AchievementsLoader.load(contentsOf: url)
    }
}
