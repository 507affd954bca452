//! `#[kernel]`: declares a GPU kernel once for both builds of `kernels-gpu`.
//!
//! ```ignore
//! /// `c[i] = a[i] + b[i]` for `i < n`.
//! #[kernel]
//! pub unsafe fn vec_add(a: *const f32, b: *const f32, c: *mut f32, n: u32) {
//!     // body
//! }
//! ```
//!
//! expands to
//! - on `nvptx64`: `#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn vec_add(..)`, the
//!   PTX `.entry` of that name;
//! - on the host: the same `pub unsafe fn`, which the CPU emulator calls once per simulated
//!   thread, with a `# Safety` section;
//! - on both: `pub const VEC_ADD: crate::launch::Kernel<(*const f32, *const f32, *mut f32, u32)>`,
//!   the typed handle the host launches it through, so the name and the parameter types
//!   cannot drift from the function.
//!
//! The function is written as an ordinary item (not macro input), so rustfmt formats it.
//!
//! `#[kernel(sm_90a)]` declares a Hopper kernel (wgmma, TMA, setmaxnreg): its entry exists only
//! in the second PTX module, which the builder compiles for `sm_90a` with `--cfg
//! ptx_ladder_hopper`, and it has no host twin (the CPU emulator does not run Hopper
//! instructions); the handle exists on both. Portable kernels export no entry from that build
//! (they are the host's plain `unsafe fn` there), so each module holds exactly its own kernels.
//!
//! Launch bounds (CUDA C++'s `__launch_bounds__` and `__cluster_dims__`) are declared in the
//! attribute too, after `sm_90a` if present, as constant expressions:
//!
//! ```ignore
//! #[kernel(bounds(256, 2))]                            // at most 256 threads, 2 blocks per SM
//! #[kernel(sm_90a, bounds(SHAPE.threads(), 1), cluster(2))] // and clusters of 2 blocks
//! ```
//!
//! The handle carries them ([`Kernel::bounds`](../kernels_gpu/launch/struct.Kernel.html)), and
//! the builder writes them into the PTX (`.maxntid`, `.minnctapersm`, `.reqnctapercluster`).
//! `cluster(..)` needs `bounds(..)`.

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::{Expr, FnArg, Ident, ItemFn, Token, parenthesized, parse_macro_input};

/// What the attribute says: the module, and the launch bounds.
#[derive(Default)]
struct Options {
    hopper: bool,
    /// (max threads per block, min blocks per multiprocessor).
    bounds: Option<(Expr, Expr)>,
    cluster: Option<Expr>,
}

impl Parse for Options {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut options = Options::default();
        while !input.is_empty() {
            let word: Ident = input.parse()?;
            match word.to_string().as_str() {
                "sm_90a" if !options.hopper => options.hopper = true,
                "bounds" if options.bounds.is_none() => {
                    let content;
                    parenthesized!(content in input);
                    let threads: Expr = content.parse()?;
                    content.parse::<Token![,]>()?;
                    let blocks: Expr = content.parse()?;
                    content.parse::<Option<Token![,]>>()?;
                    if !content.is_empty() {
                        return Err(content.error("bounds takes (max threads per block, min blocks per SM)"));
                    }
                    options.bounds = Some((threads, blocks));
                }
                "cluster" if options.cluster.is_none() => {
                    let content;
                    parenthesized!(content in input);
                    options.cluster = Some(content.parse()?);
                }
                _ => {
                    return Err(syn::Error::new_spanned(
                        word,
                        "#[kernel] takes `sm_90a`, `bounds(threads, blocks_per_sm)` and `cluster(blocks)`, each at most once",
                    ));
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        if options.cluster.is_some() && options.bounds.is_none() {
            return Err(input.error("cluster(..) needs bounds(..): a clustered kernel declares its block size"));
        }
        Ok(options)
    }
}

#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr as Options);
    let function = parse_macro_input!(item as ItemFn);
    expand(function, options).unwrap_or_else(|e| e.to_compile_error()).into()
}

fn expand(function: ItemFn, options: Options) -> syn::Result<proc_macro2::TokenStream> {
    let hopper = options.hopper;
    let ItemFn { attrs, vis, sig, block } = function;
    if sig.unsafety.is_none() || sig.abi.is_some() || sig.asyncness.is_some() || sig.constness.is_some() {
        return Err(syn::Error::new_spanned(sig.fn_token, "#[kernel] expects `pub unsafe fn name(..) { .. }`"));
    }
    if !sig.generics.params.is_empty() || !matches!(sig.output, syn::ReturnType::Default) {
        return Err(syn::Error::new_spanned(&sig, "a kernel has no generic parameters and returns nothing"));
    }
    let mut types = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Typed(typed) => types.push(typed.ty.clone()),
            FnArg::Receiver(r) => return Err(syn::Error::new_spanned(r, "a kernel takes no `self`")),
        }
    }
    let name = &sig.ident;
    let inputs = &sig.inputs;
    let handle = format_ident!("{}", name.to_string().to_uppercase());
    let handle_doc = if hopper {
        format!("Typed launch handle of the sm_90a kernel `{name}`: its PTX entry name and parameter types.")
    } else {
        format!("Typed launch handle of [`{name}`]: its PTX entry name and parameter types.")
    };
    let bounds = match (&options.bounds, &options.cluster) {
        (None, _) => quote! {},
        (Some((threads, blocks)), None) => quote! { .with_bounds(#threads, #blocks, 1) },
        (Some((threads, blocks)), Some(cluster)) => quote! { .with_bounds(#threads, #blocks, #cluster) },
    };
    let handle_item = quote! {
        #[doc = #handle_doc]
        #vis const #handle: crate::launch::Kernel<(#(#types,)*)> = crate::launch::Kernel::new(stringify!(#name))#bounds;
    };
    if hopper {
        return Ok(quote! {
            #(#attrs)*
            #[cfg(all(target_arch = "nvptx64", ptx_ladder_hopper))]
            #[unsafe(no_mangle)]
            #vis unsafe extern "ptx-kernel" fn #name(#inputs) #block

            #handle_item
        });
    }
    Ok(quote! {
        #(#attrs)*
        #[cfg(all(target_arch = "nvptx64", not(ptx_ladder_hopper)))]
        #[unsafe(no_mangle)]
        #vis unsafe extern "ptx-kernel" fn #name(#inputs) #block

        #(#attrs)*
        #[doc = ""]
        #[doc = " # Safety"]
        #[doc = " Run only through a launch (or the CPU emulator) with the shape its"]
        #[doc = " module computes, and with pointers to device buffers as large as"]
        #[doc = " the kernel reads and writes."]
        // Also in the sm_90a build, as a plain function that exports no
        // entry: the kernel's helpers are then used there too, so no lint
        // has to be silenced for them.
        #[cfg(not(all(target_arch = "nvptx64", not(ptx_ladder_hopper))))]
        // The section above is there; clippy does not read doc attributes a
        // proc-macro writes when the kernel itself has no doc comment.
        #[allow(clippy::missing_safety_doc)]
        #vis unsafe fn #name(#inputs) #block

        #handle_item
    })
}
