import ArgumentParser
import FeedModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `--token-file PATH` and `--token -`: a token that never appears on the command line, where
/// every user of the machine sees it (`ps`, `/proc/*/cmdline`) and the shell's history keeps it.
extension AppOptions {
    mutating func validate() throws {
        if let path = tokenFile {
            guard token == nil else { throw ValidationError("give the token with --token or with --token-file, not both") }
            token = try TokenInput.fromFile(path)
        } else if token == "-" {
            token = try TokenInput.fromStandardInput()
        }
    }
}

enum TokenInput {
    /// More than any bank's token: a file this big is not one.
    static let limit = 16 * 1024

    static func fromFile(_ path: String) throws -> String {
        let shown = TextSanitizer.clean(path)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: HomePath.expand(path)), options: .mappedIfSafe)
        } catch {
            throw ValidationError("the token file \(shown) cannot be read (\(TokenInput.reason(error)))")
        }
        return try token(data, from: "the token file \(shown)")
    }

    /// Standard input to its end (once per process: the options may be checked more than once).
    static func fromStandardInput() throws -> String {
        try standardInput.withLock { kept in
            if let kept { return try kept.get() }
            let result = Result { () throws -> String in
                guard isatty(STDIN_FILENO) == 0 else {
                    throw ValidationError("--token - reads the token from standard input, which is a terminal here: pipe it in, or use --token-file")
                }
                var data = Data()
                while data.count <= limit {
                    let chunk = FileHandle.standardInput.readData(ofLength: 4096)
                    if chunk.isEmpty { break }
                    data += chunk
                }
                return try token(data, from: "standard input (--token -)")
            }
            kept = result
            return try result.get()
        }
    }

    private static let standardInput = Locked<Result<String, any Error>?>(nil)

    /// The first line, without surrounding blanks; refused when there is none or the input is not text.
    static func token(_ data: Data, from origin: String) throws -> String {
        guard data.count <= limit else { throw ValidationError("\(origin) is too long to hold a token") }
        guard let text = String(data: data, encoding: .utf8) else { throw ValidationError("\(origin) is not text") }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let first = lines.first else { throw ValidationError("\(origin) is empty: no token in it") }
        guard lines.count == 1 else { throw ValidationError("\(origin) holds more than one line; a token is one") }
        return first
    }

    private static func reason(_ error: any Error) -> String {
        let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code ?? (error as NSError).code
        switch Int32(code) {
        case ENOENT: return "no such file"
        case EACCES: return "permission denied"
        case EISDIR: return "a directory"
        default: return "error \(code)"
        }
    }
}
