import ArgumentParser
import Dispatch
import FeedModel
import TermUI
#if canImport(Glibc)
import Glibc
#endif

/// The app itself (the default subcommand).
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the app (the default)."
    )

    @MainActor
    func run() async throws {
        guard isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("standard output is not a terminal")
        }
        MainActor.assumeIsolated {
            SampleScreen.shared.start(colors: getenv("NO_COLOR") == nil)
        }
        dispatchMain()
    }
}

/// A sample screen drawn through the real backend, until the app's screens land: tabs, styled
/// lines, progress bars and a status bar. Quits on `q`, Ctrl-C, SIGTERM and SIGHUP.
@MainActor
final class SampleScreen {
    static let shared = SampleScreen()

    enum Action: Sendable { case quit, nextTab, previousTab, more, less, help }

    let terminal = NcursesTerminal()
    var buffer = CellBuffer(width: 0, height: 0)
    var tab = 0
    var progress = 0.5
    var showsHelp = false
    let keyMap = KeyMap<Action>([
        KeyBinding([.tab, .right], .nextTab, help: "Next tab", section: "Tabs"),
        KeyBinding([.backTab, .left], .previousTab, help: "Previous tab", section: "Tabs"),
        KeyBinding([.char("+"), .up], .more, help: "More progress", section: "Progress"),
        KeyBinding([.char("-"), .down], .less, help: "Less progress", section: "Progress"),
        KeyBinding([.char("?")], .help, help: "Show or hide this help", section: "General"),
        KeyBinding([.char("q")], .quit, help: "Quit", section: "General"),
    ])
    let tabs = ["1 Goals", "2 Activity", "3 Round-ups", "4 Achievements"]

    func start(colors: Bool) {
        terminal.start(colors: colors)
        terminal.startEventSources { [unowned self] event in self.handle(event) }
        draw()
    }

    func handle(_ event: TerminalEvent) {
        switch event {
        case .quitSignal(let signal):
            quit(status: 128 + signal)
        case .resize:
            draw()
        case .key(.escape) where showsHelp:
            showsHelp = false
            draw()
        case .key(let key):
            switch keyMap.action(for: key) {
            case .quit: quit(status: 0)
            case .nextTab: tab = (tab + 1) % tabs.count
            case .previousTab: tab = (tab + tabs.count - 1) % tabs.count
            case .more: progress += 0.05
            case .less: progress = max(0, progress - 0.05)
            case .help: showsHelp.toggle()
            case nil:
                if case .char(let c) = key, let n = c.wholeNumberValue, (1...tabs.count).contains(n) { tab = n - 1 }
            }
            draw()
        }
    }

    func quit(status: Int32) -> Never {
        terminal.stop()
        exit(status)
    }

    func draw() {
        let size = terminal.size
        if buffer.width != size.width || buffer.height != size.height {
            buffer = CellBuffer(width: size.width, height: size.height)
        } else {
            buffer.clear()
        }
        guard size.width >= 20, size.height >= 6 else {
            buffer.write("Terminal too small", x: 0, y: 0)
            terminal.present(buffer)
            return
        }
        let (top, rest) = buffer.area.splitVertically(topHeight: 1)
        let (body, status) = rest.splitVertically(topHeight: rest.height - 1)
        TabBar(titles: tabs, selected: tab).draw(into: &buffer, rect: top)
        let content = body.inset(dx: 2, dy: 1)
        let lines: [[Span]] = [
            [Span("Bold: ", .bold), Span("savings goals, "), Span("reverse", .reverse), Span(", "),
             Span("dim", .dim), Span(", "), Span("underline", .underline), Span(", "), Span("italic", .italic)],
            [Span("Money in ", .role(.moneyIn)), Span("+$12.50", .role(.moneyIn, .bold)),
             Span("  money out ", .role(.moneyOut)), Span("-$4.35", .role(.moneyOut, .bold)),
             Span("  warning", .role(.warning)), Span("  error", .role(.error)), Span("  muted", .role(.muted))],
            [Span("Selected row                              ", Style(fg: .role(.selection), attributes: .reverse))],
            [Span("Wide: 東京 trip ⚡️ Café — "), Span("true colour", Style(fg: .rgb(255, 128, 0)))],
        ]
        for (i, line) in lines.enumerated() where i < content.height {
            buffer.write(line, x: content.x, y: content.y + i, maxWidth: content.width)
        }
        if content.height > 5 {
            let label = "Trip to Tokyo "
            buffer.write(label, x: content.x, y: content.y + 5, style: .bold)
            ProgressBar(fraction: progress).draw(into: &buffer, x: content.x + TextWidth.of(label),
                                                 y: content.y + 5, width: min(40, content.width - TextWidth.of(label)))
        }
        if content.height > 6 {
            ProgressBar(fraction: progress, usesBlocks: false).draw(into: &buffer, x: content.x + 14, y: content.y + 6,
                                                                    width: min(40, content.width - 14))
        }
        StatusBar(left: [Span(" demo")], center: [Span(tabs[tab])], right: [Span("? help  q quit ")])
            .draw(into: &buffer, rect: status)
        if showsHelp { HelpOverlay.draw(keyMap, into: &buffer, in: body) }
        terminal.present(buffer)
    }
}
