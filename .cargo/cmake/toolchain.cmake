# CMake toolchain file named by .cargo/config.toml [env] CMAKE_TOOLCHAIN_FILE.
# The QuickJS backend (v8x) builds WAMR with CMake, and WAMR's simde.cmake
# would git-clone simde from GitHub. Point FetchContent at Debian's
# libsimde-dev headers instead (they live in /usr/include/simde).
set(FETCHCONTENT_SOURCE_DIR_SIMDE "/usr/include" CACHE PATH "simde headers from libsimde-dev" FORCE)
set(FETCHCONTENT_FULLY_DISCONNECTED ON CACHE BOOL "no network for FetchContent" FORCE)
