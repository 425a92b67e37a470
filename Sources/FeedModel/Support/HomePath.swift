import Foundation

/// `~` and `~/…` as a shell reads them: the home folder (`$HOME`, else the account's). A shell
/// expands a path given as its own word, but not after `--flag=`, in quotes, in a config file or
/// typed into the app's form; every path the app takes goes through here, so each means the same.
/// `~user/…` is left as it is.
public enum HomePath {
    public static func expand(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        let folder = home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home
        return path == "~" ? folder : folder + path.dropFirst(1)
    }
}
