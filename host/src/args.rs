//! A small, strict command-line parser: `host <command> [--flag value]...`.
//! Unknown flags, missing values and malformed numbers are usage errors that
//! name the flag and what it accepts.

use std::fmt;

/// A usage mistake: printed with a hint to run `host help`.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub type Parsed<T> = Result<T, UsageError>;

fn usage<T>(message: impl Into<String>) -> Parsed<T> {
    Err(UsageError(message.into()))
}

/// The flags given to one command, consumed as the command reads them.
pub struct Flags {
    command: String,
    given: Vec<(String, Option<String>)>,
    known: Vec<&'static str>,
}

impl Flags {
    /// Splits `--name value`, `--name=value` and bare switches.
    pub fn parse(command: &str, args: &[String]) -> Parsed<Flags> {
        let mut given = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let arg = &args[i];
            let Some(name) = arg.strip_prefix("--") else {
                return usage(format!("unexpected argument '{arg}' for `host {command}` (flags start with --)"));
            };
            if let Some((name, value)) = name.split_once('=') {
                given.push((format!("--{name}"), Some(value.to_string())));
            } else if args.get(i + 1).is_some_and(|next| !next.starts_with("--")) {
                given.push((arg.clone(), Some(args[i + 1].clone())));
                i += 1;
            } else {
                given.push((arg.clone(), None));
            }
            i += 1;
        }
        Ok(Flags { command: command.to_string(), given, known: Vec::new() })
    }

    fn take(&mut self, name: &'static str) -> Parsed<Option<Option<String>>> {
        self.known.push(name);
        let mut found = None;
        while let Some(pos) = self.given.iter().position(|(n, _)| n == name) {
            if found.is_some() {
                return usage(format!("{name} is given twice"));
            }
            found = Some(self.given.remove(pos).1);
        }
        Ok(found)
    }

    /// A flag that needs a value.
    pub fn value(&mut self, name: &'static str) -> Parsed<Option<String>> {
        match self.take(name)? {
            None => Ok(None),
            Some(Some(v)) => Ok(Some(v)),
            Some(None) => usage(format!("{name} needs a value")),
        }
    }

    /// A switch without a value.
    pub fn switch(&mut self, name: &'static str) -> Parsed<bool> {
        match self.take(name)? {
            None => Ok(false),
            Some(None) => Ok(true),
            Some(Some(v)) => usage(format!("{name} takes no value (got '{v}')")),
        }
    }

    /// A whole number in `min..=max`.
    pub fn number(&mut self, name: &'static str, min: u64, max: u64) -> Parsed<Option<u64>> {
        let Some(text) = self.value(name)? else { return Ok(None) };
        let value = parse_number(&text).ok_or_else(|| {
            UsageError(format!("{name} expects a whole number like 4096, 1e8 or 2^28 (got '{text}')"))
        })?;
        if value < min || value > max {
            return usage(format!("{name} must be between {min} and {max} (got {value})"));
        }
        Ok(Some(value))
    }

    /// Fails on any flag the command did not ask for.
    pub fn finish(self) -> Parsed<()> {
        if let Some((name, _)) = self.given.first() {
            let mut known = self.known.clone();
            known.sort_unstable();
            known.dedup();
            let list = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return usage(format!("unknown flag {name} for `host {}` (its flags: {list})", self.command));
        }
        Ok(())
    }
}

/// "4096", "268_435_456", "1e8", "2^28" → integer.
pub fn parse_number(text: &str) -> Option<u64> {
    let text = text.trim().replace('_', "");
    if let Some((base, exp)) = text.split_once('^') {
        return base.parse::<u64>().ok()?.checked_pow(exp.parse().ok()?);
    }
    if let Some((mantissa, exp)) = text.split_once(['e', 'E']) {
        let exp: u32 = exp.parse().ok()?;
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if frac.len() as u32 > exp {
            return None;
        }
        let digits: u64 = format!("{int}{frac}").parse().ok()?;
        return digits.checked_mul(10u64.checked_pow(exp - frac.len() as u32)?);
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(args: &[&str]) -> Flags {
        Flags::parse("test", &args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn numbers_in_several_spellings() {
        assert_eq!(parse_number("4096"), Some(4096));
        assert_eq!(parse_number("268_435_456"), Some(268_435_456));
        assert_eq!(parse_number("1e8"), Some(100_000_000));
        assert_eq!(parse_number("2.5e3"), Some(2500));
        assert_eq!(parse_number("2^28"), Some(268_435_456));
        for bad in ["", "-1", "1.5", "abc", "2^99", "1e30", "1.23e1"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn values_switches_and_equals_form() {
        let mut f = flags(&["--n", "1000", "--tune", "--json=out.json"]);
        assert_eq!(f.number("--n", 1, 10_000).unwrap(), Some(1000));
        assert!(f.switch("--tune").unwrap());
        assert_eq!(f.value("--json").unwrap().as_deref(), Some("out.json"));
        assert_eq!(f.value("--svg").unwrap(), None);
        f.finish().unwrap();
    }

    #[test]
    fn mistakes_are_named() {
        let mut f = flags(&["--n", "0"]);
        assert_eq!(f.number("--n", 1, 10).unwrap_err().0, "--n must be between 1 and 10 (got 0)");
        let mut f = flags(&["--n", "ten"]);
        assert!(f.number("--n", 1, 10).unwrap_err().0.contains("expects a whole number"));
        let mut f = flags(&["--n"]);
        assert_eq!(f.value("--n").unwrap_err().0, "--n needs a value");
        let mut f = flags(&["--n", "1", "--n", "2"]);
        assert_eq!(f.value("--n").unwrap_err().0, "--n is given twice");
        let mut f = flags(&["--tune", "yes"]);
        assert!(f.switch("--tune").unwrap_err().0.contains("takes no value"));
        let mut f = flags(&["--bogus", "1"]);
        f.value("--n").unwrap();
        assert_eq!(f.finish().unwrap_err().0, "unknown flag --bogus for `host test` (its flags: --n)");
        let err = Flags::parse("test", &["stray".to_string()]).err().unwrap();
        assert!(err.0.contains("unexpected argument 'stray'"));
    }
}
