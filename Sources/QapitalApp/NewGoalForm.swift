import FeedModel
import Foundation
import TermUI

/// The small form that `a` opens: a name, an optional target and an optional photo (a path to a
/// PNG or JPEG file, shown as a preview once read), each with its problem beside it. Closes
/// when its goal arrived (the Goals list selects it).
@MainActor
final class NewGoalForm: Overlay {
    enum Field: CaseIterable { case name, target, photo }
    enum Action: Sendable { case nextField, create, cancel }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "New-goal form (a; other keys type)"
        map.bind([.tab, .backTab, .down, .up], to: .nextField, help: "next or previous field", section: section)
        map.bind([.enter], to: .create, help: "create the goal", section: section)
        map.bind([.escape], to: .cancel, help: "cancel, close it", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    var name = TextInput()
    var target = TextInput()
    var photoPath = TextInput()
    var focus = Field.name
    var problems = NewGoal.Problems()
    /// The photo read from `photoPath` (nil while the path is empty or has a problem).
    private(set) var photo: GoalPhoto?
    private(set) var photoProblem: String?
    /// Where the photo's `~/` points: `$HOME` (tests set their own).
    var home = HomePath.expand("~")
    /// The terminal's cell where it draws pictures itself: the preview is then a picture too.
    var cellPixels: PixelSize?

    static let nameWidth = 28
    static let targetWidth = 12

    /// Opens a fresh form: whatever an earlier one sent is no longer reported. A source that
    /// cannot create goals says why instead.
    static func open(_ data: ScreenData) -> Outcome {
        if let reason = data.noGoalCreation { return .notice(reason) }
        let form = NewGoalForm()
        form.cellPixels = data.images?.cellPixels
        return .run([.resetGoalCreation], then: .present(form))
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        switch Self.keyMap.action(for: key) {
        case .cancel:
            return .run([.resetGoalCreation], then: .close())
        case .create:
            guard !data.goalCreator.isBusy else { return .consumed }
            if var goal = validate(currency: data.currency) {
                goal.photo = photo?.data
                return .run(.createGoal(goal))
            }
        case .nextField, nil:
            edit(key)
        }
        return .consumed
    }

    func receive(_ event: StoreEvent, _ data: ScreenData) -> Outcome {
        guard case .goalCreated(let goal) = event else { return .ignored }
        let found = if case .created(_, true) = data.goalCreator.phase { " (its answer was lost; it was found among the goals)" } else { "" }
        return .run([.resetGoalCreation], then: .close(notice: "Created the goal “\(goal.name)”\(found)."))
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        // Pictures are off without colours, with --no-images and for a screen reader: no preview then.
        draw(phase: data.goalCreator.phase, currency: data.currency, preview: data.colors && data.images != nil, into: &buffer, area: area)
    }

    /// Feeds a key to the focused field; Tab and ↓ move to the next field, Shift-Tab and ↑ back.
    /// Leaving the photo field reads the photo.
    func edit(_ key: Key) {
        switch key {
        case .tab, .backTab, .down, .up:
            if focus == .photo { readPhoto() }
            let fields = Field.allCases
            let step = key == .tab || key == .down ? 1 : fields.count - 1
            focus = fields[(fields.firstIndex(of: focus)! + step) % fields.count]
        default:
            switch focus {
            case .name:
                if name.handle(key) == .edited { problems.name = nil }
            case .target:
                if target.handle(key) == .edited { problems.target = nil }
            case .photo:
                if photoPath.handle(key) == .edited {
                    photoProblem = nil
                    if photo?.path != photoPath.text { photo = nil }
                }
            }
        }
    }

    /// Reads and checks the file the photo field names (again only when the path changed).
    func readPhoto() {
        let path = photoPath.text.trimmingCharacters(in: .whitespaces)
        guard !path.isEmpty else {
            photo = nil
            photoProblem = nil
            return
        }
        if photo?.path == photoPath.text { return }
        switch GoalPhoto.load(path: path, environment: ["HOME": home], cellPixels: cellPixels) {
        case .success(let loaded):
            photo = GoalPhoto(path: photoPath.text, data: loaded.data, format: loaded.format, preview: loaded.preview)
            photoProblem = nil
        case .failure(let problem):
            photo = nil
            photoProblem = problem.message
        }
    }

    /// Checks the fields; on success the goal to send, else the problems are kept for display.
    func validate(currency: Currency) -> NewGoal? {
        readPhoto()
        switch NewGoal.validate(name: name.text, target: target.text, currency: currency) {
        case .success(let goal):
            problems = NewGoal.Problems()
            if photoProblem != nil {
                focus = .photo
                return nil
            }
            return goal
        case .failure(let found):
            problems = found
            focus = found.name != nil ? .name : found.target != nil ? .target : .photo
            return nil
        }
    }

    static let photoWidth = 28

    func draw(phase: GoalCreator.Phase, currency: Currency, preview: Bool = false, into buffer: inout CellBuffer, area: Rect) {
        let muted = Style(fg: .role(.muted))
        let error = Style(fg: .role(.error), attributes: .bold)
        let blankName = String(repeating: " ", count: NewGoalForm.nameWidth)
        let blankTarget = String(repeating: " ", count: NewGoalForm.targetWidth)
        var status: [Span] = []
        switch phase {
        case .sending: status = [Span("Creating…", Style(fg: .role(.warning)))]
        case .checking: status = [Span("The answer was lost: looking for the goal…", Style(fg: .role(.warning)))]
        case .failed(let message): status = [Span("✗ " + message, error)]
        case .idle, .created: break
        }
        let blankPhoto = String(repeating: " ", count: NewGoalForm.photoWidth)
        var photoNote: Span
        if let photoProblem {
            photoNote = Span("✗ " + photoProblem, error)
        } else if let photo {
            photoNote = Span("✓ " + photo.summary, Style(fg: .role(.moneyIn)))
        } else {
            photoNote = Span(photoPath.text.isEmpty ? "optional: a PNG or JPEG file" : "Tab reads it", muted)
        }
        // The preview stands under the photo's line, where there is a photo and pictures are shown.
        let previewRows = photo != nil && preview ? GoalPhoto.previewSize.rows : 0
        var lines: [[Span]] = [
            [Span("Name    " + blankName + "  "), problems.name.map { Span("✗ " + $0, error) } ?? Span(name.text.isEmpty ? "required" : "", muted)],
            [],
            [Span("Target  " + blankTarget + " " + currency.code + "  "),
             problems.target.map { Span("✗ " + $0, error) } ?? Span(target.text.isEmpty ? "optional" : "", muted)],
            [],
            [Span("Photo   " + blankPhoto + "  ")],
            [Span("        "), photoNote],
        ]
        lines += Array(repeating: [], count: previewRows)
        lines += [[], status, [Span("Tab: next field   Enter: create   Esc: cancel", muted)]]
        // A fixed width, so the box does not jump while problems come and go.
        let box = area.centered(width: 66, height: lines.count + 2)
        let body = box.inset(dx: 2, dy: 1)
        buffer.fill(box)
        Box.draw(into: &buffer, rect: box, style: Style(fg: .role(.border)), title: "New goal")
        for (row, line) in lines.prefix(body.height).enumerated() {
            buffer.write(line, x: body.x, y: body.y + row, maxWidth: body.width)
        }
        let field = Style(attributes: .underline)
        let focused = Style(attributes: .reverse)
        name.draw(into: &buffer, x: body.x + 8, y: body.y, width: NewGoalForm.nameWidth, style: field,
                  cursorStyle: focus == .name ? focused : field, focused: focus == .name)
        if body.height > 2 {
            target.draw(into: &buffer, x: body.x + 8, y: body.y + 2, width: NewGoalForm.targetWidth, style: field,
                        cursorStyle: focus == .target ? focused : field, focused: focus == .target)
        }
        if body.height > 4 {
            photoPath.draw(into: &buffer, x: body.x + 8, y: body.y + 4, width: NewGoalForm.photoWidth, style: field,
                           cursorStyle: focus == .photo ? focused : field, focused: focus == .photo)
        }
        if let photo, previewRows > 0, body.height > 6 {
            // Under the fields, in their column.
            let spot = body.rows([.length(6), .length(previewRows)])[1].columns([.length(8), .length(GoalPhoto.previewSize.columns)])[1]
            photo.preview.draw(into: &buffer, x: spot.x, y: spot.y, clip: spot)
        }
    }
}

/// What the new-goal form asks of the stores.
extension Command {
    /// Enter: make the goal.
    static func createGoal(_ goal: NewGoal) -> Command {
        Command("create-goal", goal) { $0.stores.goalCreator.create(goal) }
    }
    /// The form opens or closes: what an earlier one sent is no longer reported.
    static let resetGoalCreation = Command("reset-goal-creation") { $0.stores.goalCreator.reset() }
}
