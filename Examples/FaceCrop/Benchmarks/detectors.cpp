// Measures face detectors from Debian's packages on the labelled photos of
// make-labelled-set.sh, each on the same small grey copy the plugin detects on (libvips
// thumbnail, <= 512 px on the long side, then one band of luminance):
// detection rate, false positives and milliseconds per photo. Built and run by
// run-detectors.sh; not part of the plugin.
#include <dlib/image_processing/frontal_face_detector.h>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <vips/vips.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

struct Box { double x, y, w, h; };
struct Photo { std::string file; std::vector<Box> faces; };

// The grey copy in its own pixels, and its scale from the photo.
struct Grey { std::vector<unsigned char> pixels; int width = 0, height = 0; double scale = 1; };

static Grey greyCopy(const std::string &path) {
  Grey grey;
  VipsImage *original = vips_image_new_from_file(path.c_str(), nullptr);
  VipsImage *small = nullptr, *bw = nullptr, *band = nullptr, *uchar = nullptr;
  if (!original || vips_thumbnail(path.c_str(), &small, 512, "height", 512, "size", VIPS_SIZE_DOWN, nullptr) ||
      vips_colourspace(small, &bw, VIPS_INTERPRETATION_B_W, nullptr) ||
      vips_extract_band(bw, &band, 0, nullptr) || vips_cast_uchar(band, &uchar, nullptr)) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), vips_error_buffer());
    std::exit(1);
  }
  size_t size = 0;
  auto *memory = static_cast<unsigned char *>(vips_image_write_to_memory(uchar, &size));
  grey.pixels.assign(memory, memory + size);
  g_free(memory);
  grey.width = uchar->Xsize;
  grey.height = uchar->Ysize;
  grey.scale = double(original->Xsize) / grey.width;
  for (VipsImage *image : {original, small, bw, band, uchar}) g_object_unref(image);
  return grey;
}

using Detector = std::function<std::vector<Box>(Grey &)>;

static Detector cascade(const std::string &file, int minimum, double step = 1.1) {
  auto classifier = std::make_shared<cv::CascadeClassifier>(file);
  if (classifier->empty()) { std::fprintf(stderr, "cannot load %s\n", file.c_str()); std::exit(1); }
  return [classifier, minimum, step](Grey &grey) {
    cv::Mat mat(grey.height, grey.width, CV_8UC1, grey.pixels.data());
    cv::Mat equalised;
    cv::equalizeHist(mat, equalised);
    std::vector<cv::Rect> found;
    classifier->detectMultiScale(equalised, found, step, 4, 0, cv::Size(minimum, minimum));
    std::vector<Box> boxes;
    for (auto &r : found) boxes.push_back({double(r.x), double(r.y), double(r.width), double(r.height)});
    return boxes;
  };
}

static Detector hog(int upsample) {
  auto detector = std::make_shared<dlib::frontal_face_detector>(dlib::get_frontal_face_detector());
  return [detector, upsample](Grey &grey) {
    dlib::array2d<unsigned char> image(grey.height, grey.width);
    for (int y = 0; y < grey.height; y++)
      std::copy_n(grey.pixels.data() + size_t(y) * grey.width, grey.width, &image[y][0]);
    double factor = 1;
    for (int i = 0; i < upsample; i++) { dlib::pyramid_up(image); factor *= 2; }
    std::vector<Box> boxes;
    for (auto &r : (*detector)(image))
      boxes.push_back({r.left() / factor, r.top() / factor, r.width() / factor, r.height() / factor});
    return boxes;
  };
}

int main(int argc, char **argv) {
  if (argc < 2 || VIPS_INIT(argv[0])) { std::fprintf(stderr, "usage: detectors SET_DIR\n"); return 2; }
  std::string folder = argv[1];
  std::vector<Photo> photos;
  std::ifstream labels(folder + "/labels.txt");
  for (std::string line; std::getline(labels, line);) {
    std::istringstream words(line);
    Photo photo;
    words >> photo.file;
    for (std::string box; words >> box;) {
      Box b{};
      std::sscanf(box.c_str(), "%lf,%lf,%lf,%lf", &b.x, &b.y, &b.w, &b.h);
      photo.faces.push_back(b);
    }
    photos.push_back(photo);
  }
  std::vector<Grey> greys;
  for (auto &photo : photos) greys.push_back(greyCopy(folder + "/" + photo.file));
  const std::string cascades = "/usr/share/opencv4/";
  std::vector<std::pair<std::string, Detector>> detectors = {
      {"opencv haar frontalface_default", cascade(cascades + "haarcascades/haarcascade_frontalface_default.xml", 12)},
      {"opencv haar frontalface_alt2", cascade(cascades + "haarcascades/haarcascade_frontalface_alt2.xml", 12)},
      {"  the same, scale step 1.2", cascade(cascades + "haarcascades/haarcascade_frontalface_alt2.xml", 12, 1.2)},
      {"  the same, faces of 20 px and up", cascade(cascades + "haarcascades/haarcascade_frontalface_alt2.xml", 20)},
      {"opencv lbp frontalface_improved", cascade(cascades + "lbpcascades/lbpcascade_frontalface_improved.xml", 12)},
      {"dlib hog frontal (no upsampling)", hog(0)},
      {"dlib hog frontal (upsampled once)", hog(1)},
  };
  int faces = 0;
  for (auto &photo : photos) faces += int(photo.faces.size());
  std::printf("%zu photos, %d faces, grey copies <= 512 px\n", photos.size(), faces);
  // Faces by their width in the grey copy: under 24 px, 24 to 47, 48 and more.
  auto bucket = [](double width) { return width < 24 ? 0 : width < 48 ? 1 : 2; };
  int perBucket[3] = {0, 0, 0};
  for (size_t i = 0; i < photos.size(); i++)
    for (auto &face : photos[i].faces) perBucket[bucket(face.w / greys[i].scale)]++;
  std::printf("faces by width in the grey copy: %d under 24 px, %d of 24-47 px, %d of 48 px or more\n",
              perBucket[0], perBucket[1], perBucket[2]);
  std::printf("%-36s %8s %6s %9s %21s %12s\n", "detector", "found", "rate", "false pos",
              "found <24/24-47/48+", "ms/photo med");
  for (auto &[name, detect] : detectors) {
    int found = 0, falsePositives = 0, foundPerBucket[3] = {0, 0, 0};
    std::vector<double> times;
    for (size_t i = 0; i < photos.size(); i++) {
      auto start = std::chrono::steady_clock::now();
      auto boxes = detect(greys[i]);
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      std::vector<bool> hit(photos[i].faces.size());
      for (auto &box : boxes) {
        // A detection counts for a labelled face when its centre lies in that face's box.
        double cx = (box.x + box.w / 2) * greys[i].scale, cy = (box.y + box.h / 2) * greys[i].scale;
        bool matched = false;
        for (size_t f = 0; f < photos[i].faces.size(); f++) {
          auto &l = photos[i].faces[f];
          if (cx >= l.x && cx <= l.x + l.w && cy >= l.y && cy <= l.y + l.h) { matched = true; hit[f] = true; }
        }
        if (!matched) { falsePositives++; std::fprintf(stderr, "  %s: false positive in %s at %.0f,%.0f\n", name.c_str(), photos[i].file.c_str(), cx, cy); }
      }
      for (size_t f = 0; f < hit.size(); f++)
        if (hit[f]) { found++; foundPerBucket[bucket(photos[i].faces[f].w / greys[i].scale)]++; } else std::fprintf(stderr, "  %s: missed face %zu of %s\n", name.c_str(), f, photos[i].file.c_str());
    }
    std::sort(times.begin(), times.end());
    std::printf("%-36s %4d/%-3d %5.0f%% %9d %13d/%d/%d %12.1f\n", name.c_str(), found, faces,
                100.0 * found / faces, falsePositives, foundPerBucket[0], foundPerBucket[1], foundPerBucket[2],
                times[times.size() / 2]);
  }
  return 0;
}
