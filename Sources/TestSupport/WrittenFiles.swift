import Foundation

/// Every regular file under `directory`, however deep: what a test searches when it checks that
/// the app wrote no secret (directories and links left out).
public func regularFiles(under directory: URL) -> [URL] {
    let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    return (walker?.allObjects as? [URL] ?? []).filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
}
