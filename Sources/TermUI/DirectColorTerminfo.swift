import Foundation

/// Truecolor where `COLORTERM` says so, even when terminfo does not: ncurses sends 24-bit
/// colours only for a `-direct` entry, and most systems ship few. So the terminal's own entry
/// gets direct colours added (`use=` keeps everything else: keys, scrolling, the alternate
/// screen), compiled with `tic` into a private directory that is removed once ncurses has read it.
enum DirectColorTerminfo {
    /// The name of the compiled entry.
    static let name = "qapital-direct"

    /// `setaf`/`setab`: the first eight colours stay the terminal's palette (30–37, 40–47, as
    /// the ncurses `-direct` entries do); anything else is `38;2;r;g;b` (semicolons: the form
    /// every truecolor terminal reads).
    static func source(for term: String) -> String? {
        guard !term.isEmpty, term.count <= 64,
              term.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._+-".unicodeScalars.contains($0)) })
        else { return nil }
        func set(_ base: Int, _ extended: Int) -> String {
            "\\E[%?%p1%{8}%<%t\(base)%p1%d%e\(extended);2;%p1%{65536}%/%d;%p1%{256}%/%{255}%&%d;%p1%{255}%&%d%;m"
        }
        return """
            \(name)|\(term) with direct colours,
            \tcolors#0x1000000, pairs#0x10000, RGB, ccc@, initc@,
            \tsetaf=\(set(3, 38)),
            \tsetab=\(set(4, 48)),
            \tuse=\(term),

            """
    }

    /// Compiles the entry; the directory to point `TERMINFO` at, or nil when `tic` is missing
    /// or refuses (the terminal then gets 256 colours).
    static func compile(term: String) -> String? {
        guard let source = source(for: term),
              let tic = ["/usr/bin/tic", "/bin/tic", "/usr/local/bin/tic"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return nil }
        var template = Array((NSTemporaryDirectory() + "qapital-terminfo-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let directory = String(cString: made)
        let file = directory + "/entry.ti"
        guard FileManager.default.createFile(atPath: file, contents: Data(source.utf8)) else {
            remove(directory)
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tic)
        process.arguments = ["-x", "-o", directory, file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            remove(directory)
            return nil
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            remove(directory)
            return nil
        }
        return directory
    }

    static func remove(_ directory: String) {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
