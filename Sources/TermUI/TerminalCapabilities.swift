/// What the terminal can do beyond text, decided once at start from its answers to the probe
/// (`TerminalReplies`), the environment (`TERM`, `TERM_PROGRAM`, `COLORTERM`, `TMUX`, `STY`) and
/// the config file's `[terminal]` table, which can force or forbid each. Pure: tested with
/// recorded replies.
public struct TerminalCapabilities: Hashable, Sendable {
    /// How pictures are drawn, best first.
    public enum Graphics: String, CaseIterable, Hashable, Sendable {
        case kitty
        case sixel
        case iterm2
        case halfBlocks = "half-blocks"

        public var displayName: String {
            switch self {
            case .kitty: "kitty graphics"
            case .sixel: "sixel"
            case .iterm2: "iTerm2 inline images"
            case .halfBlocks: "half blocks"
            }
        }
    }

    /// What the config file (or a test) decides instead of the probe; nil: detect.
    public struct Overrides: Hashable, Sendable {
        public var graphics: Graphics?
        public var synchronizedOutput: Bool?
        public var truecolor: Bool?
        /// kitty graphics drawn by Unicode placeholders (true) or placements (false).
        public var kittyPlaceholders: Bool?
        /// sixel pictures move with their rows when a region scrolls.
        public var sixelScrolls: Bool?
        /// false: ask the terminal nothing (the answers count as none).
        public var probe = true
        public init(graphics: Graphics? = nil, synchronizedOutput: Bool? = nil, truecolor: Bool? = nil, kittyPlaceholders: Bool? = nil,
                    sixelScrolls: Bool? = nil, probe: Bool = true) {
            self.graphics = graphics
            self.synchronizedOutput = synchronizedOutput
            self.truecolor = truecolor
            self.kittyPlaceholders = kittyPlaceholders
            self.sixelScrolls = sixelScrolls
            self.probe = probe
        }
    }

    public var graphics: Graphics
    /// Frames are bracketed with `CSI ? 2026 h` … `l`.
    public var synchronizedOutput: Bool
    /// Colours are sent as 24-bit RGB (`COLORTERM=truecolor`), whatever terminfo says.
    public var truecolor: Bool
    /// kitty graphics: pictures drawn by Unicode placeholder cells, which scroll with the text
    /// (kitty 0.28 and later, Ghostty; through tmux's passthrough), not by placements.
    public var kittyPlaceholders = false
    /// sixel: the terminal moves a picture's pixels with its rows when a region scrolls (xterm,
    /// checked from screenshots), so rows are scrolled, not written again.
    public var sixelScrolls = false
    /// One cell in pixels (asked, or worked out from the text area); nil when unknown.
    public var cellPixels: PixelSize?
    /// "tmux" or "screen" when the app runs inside one.
    public var multiplexer: String?
    /// The terminal's own name (XTVERSION), else `TERM_PROGRAM`.
    public var name: String?
    public var replies: TerminalReplies
    /// Why each was decided, one line each, for `qapital-tui doctor`.
    public var reasons: [String: String] = [:]

    /// Text only: no pictures, no brackets, no truecolor (the test terminal, a pipe).
    public static let plain = TerminalCapabilities(graphics: .halfBlocks, synchronizedOutput: false, truecolor: false,
                                                   cellPixels: nil, multiplexer: nil, name: nil, replies: TerminalReplies())

    /// The cell size pictures are scaled to when the terminal did not say (a common 10 × 20 font).
    public static let assumedCellPixels = PixelSize(width: 10, height: 20)

    /// Decides from what the terminal answered (`replies`; empty when it was not asked or said
    /// nothing), the environment and the overrides.
    public static func resolve(replies: TerminalReplies, environment: [String: String], overrides: Overrides = Overrides(),
                               size: TerminalSize? = nil) -> TerminalCapabilities {
        let term = environment["TERM"] ?? ""
        let program = environment["TERM_PROGRAM"] ?? ""
        var reasons: [String: String] = [:]

        let multiplexer: String?
        if !(environment["TMUX"] ?? "").isEmpty || term.hasPrefix("tmux") {
            multiplexer = "tmux"
        } else if !(environment["STY"] ?? "").isEmpty || term.hasPrefix("screen") {
            multiplexer = "screen"
        } else {
            multiplexer = nil
        }
        let name = replies.version ?? (program.isEmpty ? nil : program)
        let lowerName = (name ?? "").lowercased()

        // Pictures: what the terminal said, else what its environment says it is.
        var graphics = Graphics.halfBlocks
        var why = replies.answered ? "the terminal offers no picture protocol" : "the terminal did not answer"
        let kittyHint = term == "xterm-kitty" || term == "xterm-ghostty" || program.lowercased() == "ghostty"
        let iterm2Hint = program == "iTerm.app" || program == "WezTerm" || lowerName.hasPrefix("iterm2") || lowerName.hasPrefix("wezterm")
        if multiplexer == "screen" {
            why = "inside screen, which passes no pictures through"
        } else if multiplexer == nil && (program == "iTerm.app" || lowerName.hasPrefix("iterm2")) {
            // iTerm2 lists sixel too, but draws its own protocol best.
            graphics = .iterm2
            why = "the terminal is iTerm2"
        } else if replies.kittyGraphics && multiplexer == nil {
            graphics = .kitty
            why = "the terminal answered the kitty graphics query"
        } else if replies.sixel {
            graphics = .sixel
            why = multiplexer == nil ? "the device attributes list sixel (4)" : "tmux lists sixel (4) in its device attributes"
        } else if multiplexer == "tmux" {
            why = "inside tmux, which passes neither kitty graphics nor iTerm2 images through"
        } else if iterm2Hint {
            graphics = .iterm2
            why = "the terminal is \(name ?? program), which draws iTerm2 inline images"
        } else if kittyHint && !replies.answered {
            graphics = .kitty
            why = "TERM=\(term) (the terminal did not answer)"
        }
        if let forced = overrides.graphics {
            graphics = forced
            why = "set in the config file"
        }
        reasons["graphics"] = why
        var placeholders = false
        if graphics == .kitty {
            (placeholders, reasons["placeholders"]) = Self.placeholders(name: name, multiplexer: multiplexer)
            if let forced = overrides.kittyPlaceholders {
                placeholders = forced
                reasons["placeholders"] = "set in the config file"
            }
        }
        var sixelScrolls = false
        if graphics == .sixel {
            // Checked in xterm (its version 379, -ti vt340); foot, WezTerm, mlterm and contour were not.
            if multiplexer != nil {
                reasons["sixel-scroll"] = "inside \(multiplexer!), which redraws what it scrolls"
            } else if lowerName.hasPrefix("xterm(") {
                sixelScrolls = true
                reasons["sixel-scroll"] = "xterm moves sixel pixels with the text"
            } else {
                reasons["sixel-scroll"] = "not known for \(name ?? "this terminal"): rows are written again"
            }
            if let forced = overrides.sixelScrolls {
                sixelScrolls = forced
                reasons["sixel-scroll"] = "set in the config file"
            }
        }

        var sync = replies.synchronizedOutput
        reasons["sync"] = replies.synchronizedOutputMode.map { "DECRQM 2026 answered \($0)" } ?? "DECRQM 2026 not answered"
        if let forced = overrides.synchronizedOutput {
            sync = forced
            reasons["sync"] = "set in the config file"
        }

        let colorterm = (environment["COLORTERM"] ?? "").lowercased()
        var truecolor = colorterm == "truecolor" || colorterm == "24bit"
        reasons["truecolor"] = colorterm.isEmpty ? "COLORTERM is not set" : "COLORTERM=\(colorterm)"
        if let forced = overrides.truecolor {
            truecolor = forced
            reasons["truecolor"] = "set in the config file"
        }

        var cell = replies.cellPixels
        if cell == nil, let window = replies.windowPixels, let size, size.width > 0, size.height > 0 {
            let width = window.width / size.width, height = window.height / size.height
            if width > 0, height > 0 { cell = PixelSize(width: width, height: height) }
        }
        if !overrides.probe { reasons["probe"] = "off in the config file" }
        var capabilities = TerminalCapabilities(graphics: graphics, synchronizedOutput: sync, truecolor: truecolor, cellPixels: cell,
                                                multiplexer: multiplexer, name: name, replies: replies, reasons: reasons)
        capabilities.kittyPlaceholders = placeholders
        capabilities.sixelScrolls = sixelScrolls
        return capabilities
    }

    /// Whether kitty graphics can be drawn by Unicode placeholders, and why: kitty from 0.28
    /// and Ghostty by their names (XTVERSION); inside tmux (kitty graphics set in the config
    /// file) always, as a placement cannot be put where tmux shows the pane.
    static func placeholders(name: String?, multiplexer: String?) -> (Bool, String) {
        if multiplexer == "tmux" { return (true, "inside tmux, through its passthrough (allow-passthrough on)") }
        let lower = (name ?? "").lowercased()
        if lower.hasPrefix("ghostty") { return (true, "Ghostty draws them") }
        if lower.hasPrefix("kitty") {
            // "kitty(0.35.2)"
            let digits = lower.drop { !$0.isNumber }.prefix { $0.isNumber || $0 == "." }
            let parts = digits.split(separator: ".").compactMap { Int($0) }
            if parts.count >= 2, (parts[0], parts[1]) >= (0, 28) { return (true, "kitty \(digits) draws them (0.28 and later)") }
            return (false, parts.count >= 2 ? "kitty \(digits) is older than 0.28" : "kitty did not say its version")
        }
        return (false, name.map { "\($0) is not known to draw them" } ?? "the terminal did not say its name")
    }

    /// The cell size to scale pictures to.
    public var pictureCellPixels: PixelSize { cellPixels ?? Self.assumedCellPixels }

    /// A note when `TERM` names another terminal than the one that answered (issue 50.1): keys
    /// such a terminal sends may be missing from `TERM`'s terminfo (tmux's Home is `ESC [1~`,
    /// which xterm's does not list). The app decodes the common ones whatever `TERM` says.
    static func termMismatch(term: String, name: String?, multiplexer: String?) -> String? {
        let expected: (String, [String])?
        let lowerName = (name ?? "").lowercased()
        if multiplexer == "tmux" || lowerName.hasPrefix("tmux") {
            expected = ("tmux", ["tmux", "screen"])
        } else if multiplexer == "screen" {
            expected = ("screen", ["screen"])
        } else if lowerName.hasPrefix("kitty") {
            expected = ("kitty", ["xterm-kitty"])
        } else if lowerName.hasPrefix("foot") {
            expected = ("foot", ["foot"])
        } else if lowerName.hasPrefix("wezterm") {
            expected = ("WezTerm", ["wezterm", "xterm"])
        } else {
            expected = nil
        }
        guard let (terminal, prefixes) = expected, !term.isEmpty, !prefixes.contains(where: { term.hasPrefix($0) }) else { return nil }
        let suggested = terminal == "tmux" ? "tmux-256color (tmux: set -g default-terminal tmux-256color)"
            : terminal == "screen" ? "screen-256color" : terminal == "kitty" ? "xterm-kitty" : prefixes[0]
        return "note: TERM is \(term) but the terminal is \(terminal): keys it sends may be missing from \(term)'s terminfo "
            + "(the app reads Home, End and the others anyway); TERM=\(suggested) matches it"
    }

    /// What `qapital-tui doctor` prints: one line per capability, with why.
    public func report(term: String, elapsedMilliseconds: Int?, asked: Bool = true) -> [String] {
        var lines: [String] = []
        var answered = replies.answered ? "answered" + (elapsedMilliseconds.map { " in \($0) ms" } ?? "") : "no answer"
        if !asked { answered = "not asked: not a terminal, or TERM is dumb or linux" }
        lines.append("terminal: \(term.isEmpty ? "(TERM not set)" : term)\(name.map { ", " + $0 } ?? "") (\(reasons["probe"] ?? answered))")
        if let multiplexer { lines.append("inside: \(multiplexer)") }
        if let mismatch = Self.termMismatch(term: term, name: name, multiplexer: multiplexer) { lines.append(mismatch) }
        lines.append("pictures: \(graphics.displayName) (\(reasons["graphics"] ?? ""))")
        if graphics == .kitty {
            lines.append("kitty placeholders: \(kittyPlaceholders ? "yes" : "no") (\(reasons["placeholders"] ?? ""))")
        }
        if graphics == .sixel {
            lines.append("sixel scrolls with the text: \(sixelScrolls ? "yes" : "no") (\(reasons["sixel-scroll"] ?? ""))")
        }
        lines.append("synchronized output: \(synchronizedOutput ? "yes" : "no") (\(reasons["sync"] ?? ""))")
        lines.append("truecolor: \(truecolor ? "yes" : "no") (\(reasons["truecolor"] ?? ""))")
        if let cellPixels {
            lines.append("cell: \(cellPixels.width) × \(cellPixels.height) pixels")
        } else {
            lines.append("cell: unknown (pictures assume \(Self.assumedCellPixels.width) × \(Self.assumedCellPixels.height) pixels)")
        }
        if let attributes = replies.deviceAttributes {
            lines.append("device attributes: \(attributes.map(String.init).joined(separator: ";"))")
        }
        return lines
    }
}
