//! Glob patterns over skill names: `*` matches any run of characters, `?` one character.

/// Whether `name` matches `pattern`.
pub fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Iterative wildcard match with backtracking to the last `*`.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_and_question_marks() {
        assert!(matches("scene.*", "scene.createEntity"));
        assert!(!matches("scene.*", "physics.raycast"));
        assert!(matches("*", "anything"));
        assert!(matches("*.query*", "scene.queryEntities"));
        assert!(matches("dice.rol?", "dice.roll"));
        assert!(matches("scene.createEntity", "scene.createEntity"));
        assert!(!matches("scene.create", "scene.createEntity"));
    }
}
