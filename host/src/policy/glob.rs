//! Glob patterns over skill names: `*` matches any run of characters, `?` one character.

/// Whether `name` matches `pattern`.
pub fn matches(pattern: &str, name: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    // Skill names and patterns are ASCII in practice: match bytes without allocating.
    if pattern.is_ascii() && name.is_ascii() {
        return wildcard(pattern.as_bytes(), name.as_bytes(), b'*', b'?');
    }
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    wildcard(&p, &n, '*', '?')
}

/// Iterative wildcard match with backtracking to the last `star`.
fn wildcard<T: PartialEq + Copy>(p: &[T], n: &[T], star_sym: T, any: T) -> bool {
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == any || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == star_sym {
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
    p[pi..].iter().all(|c| *c == star_sym)
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

    #[test]
    fn non_ascii_names_match_by_character() {
        assert!(matches("dés.?", "dés.é"));
        assert!(matches("d*s.*", "dés.lancer"));
        assert!(!matches("dés.?", "dés.ée"));
    }
}
